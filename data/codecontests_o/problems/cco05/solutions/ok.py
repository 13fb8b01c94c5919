input()
print(max(int(x) for x in input().split()))
