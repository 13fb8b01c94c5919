import sys, math
def solve():
    it = iter(sys.stdin.buffer.read().split())
    n = int(next(it))
    X = []; Y = []
    for i in range(n):
        X.append(int(next(it))); Y.append(int(next(it)))
    s = 0
    p = 0.0
    for i in range(n):
        j = (i + 1) % n
        s += X[i] * Y[j] - X[j] * Y[i]
        p += math.sqrt((X[i] - X[j]) ** 2 + (Y[i] - Y[j]) ** 2)
    print("%.6f %.6f" % (abs(s) / 2, p))
solve()
