import sys

def main():
    inp = sys.stdin.buffer.read().split()
    n = int(inp[0])
    E = []
    for i in range(n):
        l = int(inp[1 + 2 * i])
        r = int(inp[2 + 2 * i])
        E.append((l, 1))
        E.append((r, -1))
    # at equal times the -1 (end) sorts first, so the hall is reused
    E.sort()
    ans = 0
    cur = 0
    for t, d in E:
        cur += d
        ans = max(ans, cur)
    print(ans)

if __name__ == "__main__":
    main()
