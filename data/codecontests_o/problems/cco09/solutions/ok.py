import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best, total = None, 0
for token in data[1:n + 1]:
    total += int(token)
    if best is None or total > best:
        best = total
print(best)
