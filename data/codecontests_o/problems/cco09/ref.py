input()
best, total = None, 0
for x in map(int, input().split()):
    total += x
    best = total if best is None else max(best, total)
print(best)
