import sys
from collections import Counter

def main():
    data = sys.stdin.read().split()
    n, disk = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    bits = 8 * disk // n
    keep = 1 << min(bits, 30)
    counts = sorted(Counter(a).items())
    values = [c for _, c in counts]
    best = 0
    window = 0
    for i, c in enumerate(values):
        window += c
        if i >= keep:
            window -= values[i - keep]
        best = max(best, window)
    print(n - best)

main()
