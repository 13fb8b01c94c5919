import sys

data = list(map(int, sys.stdin.buffer.read().split()))
n = data[0]
print(sum(data[1:1 + 2 * n:2]) // sum(data[2:2 + 2 * n:2]))
