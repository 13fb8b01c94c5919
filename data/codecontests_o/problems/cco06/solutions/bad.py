input()
print(sum(1 for x in input().split() if int(x) < 0))
