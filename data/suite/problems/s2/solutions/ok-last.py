n = int(input())
a = list(map(int, input().split()))
best = max(a)
print(max(i + 1 for i, x in enumerate(a) if x == best))
