from collections import Counter

n = int(input())
a = Counter(input().strip() for _ in range(n))
b = Counter(input().strip() for _ in range(n))
print(n - sum((a & b).values()))
