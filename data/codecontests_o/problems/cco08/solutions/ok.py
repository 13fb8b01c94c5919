t = int(input())
for _ in range(t):
    print("Yes" if int(input()) % 2 == 0 else "No")
