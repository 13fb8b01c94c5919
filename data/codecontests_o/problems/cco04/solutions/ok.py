import sys

data = list(map(int, sys.stdin.buffer.read().split()))
n = data[0]
total_d = sum(data[1:1 + 2 * n:2])
total_t = sum(data[2:2 + 2 * n:2])
print(total_d / total_t)
