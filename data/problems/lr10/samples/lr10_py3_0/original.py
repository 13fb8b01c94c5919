import sys

def main():
    data = sys.stdin.buffer.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    idx = 3
    P = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, up, acc = P[i], P[i - 1], 0
        for j in range(1, m + 1):
            acc += int(data[idx]); idx += 1
            row[j] = up[j] + acc
    out = []
    for _ in range(q):
        r1, c1, r2, c2 = int(data[idx]), int(data[idx + 1]), int(data[idx + 2]), int(data[idx + 3])
        idx += 4
        out.append(P[r2][c2] - P[r1 - 1][c2] - P[r2][c1 - 1] + P[r1 - 1][c1 - 1])
    sys.stdout.write("\n".join(map(str, out)) + "\n")

main()
