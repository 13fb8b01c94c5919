import sys
from itertools import accumulate

def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    pref = [0] + list(accumulate(a))
    out = []
    idx = 2 + n
    for _ in range(q):
        l = int(data[idx]); r = int(data[idx + 1])
        idx += 2
        out.append(str(pref[r] - pref[l - 1]))
    sys.stdout.write("\n".join(out) + "\n")

main()
