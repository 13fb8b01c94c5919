import sys

def main():
    inp = sys.stdin.buffer.read().split()
    n = int(inp[0])
    L = []
    for i in range(n):
        l = int(inp[1 + 2 * i])
        r = int(inp[2 + 2 * i])
        L.append((r, l))
    L.sort()
    ans = 0
    cur = -1
    for r, l in L:
        if l >= cur:
            ans = ans + 1
            cur = r
    print(ans)

if __name__ == "__main__":
    main()
