input()
print(min(int(x) for x in input().split()))
