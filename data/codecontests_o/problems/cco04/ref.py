import sys
data = list(map(int, sys.stdin.read().split()))
n = data[0]
d = sum(data[1:1 + 2 * n:2])
t = sum(data[2:2 + 2 * n:2])
print(f"{d / t:.12f}")
