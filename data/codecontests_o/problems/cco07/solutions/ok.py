import sys

data = sys.stdin.buffer.read().split()
print(" ".join(map(str, sorted(map(int, data[1:])))))
