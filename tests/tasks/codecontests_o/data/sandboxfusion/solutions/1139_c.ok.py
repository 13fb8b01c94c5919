import sys

def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in range(n - 1):
        u, v, x = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
        if x == 0:
            parent[find(u)] = find(v)
    mod = 10**9 + 7
    sizes = {}
    for v in range(1, n + 1):
        root = find(v)
        sizes[root] = sizes.get(root, 0) + 1
    bad = sum(pow(s, k, mod) for s in sizes.values())
    print((pow(n, k, mod) - bad) % mod)

main()
