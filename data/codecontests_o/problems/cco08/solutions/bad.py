t = int(input())
for _ in range(t):
    print("EVEN" if int(input()) % 2 == 0 else "ODD")
