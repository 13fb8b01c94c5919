n, m, d = map(int, input().split())
c = list(map(int, input().split()))
suffix = [0] * (m + 1)
for i in range(m - 1, -1, -1):
    suffix[i] = suffix[i + 1] + c[i]
a = [0] * (n + 2)
pos = 0  # the last cell reached
for i in range(m):
    # start as far as the jump allows, but no further than where the rest still fits
    start = min(pos + d, n + 1 - suffix[i])
    for cell in range(start, start + c[i]):
        a[cell] = i + 1
    pos = start + c[i] - 1
if pos + d >= n + 1:
    print("YES")
    print(" ".join(map(str, a[1:n + 1])))
else:
    print("NO")
