import sys

def main():
    data = sys.stdin.read().split()
    pos = 0
    n = int(data[pos]); pos += 1
    alive = [1.0 - float(data[pos + i]) for i in range(n)]; pos += n
    edges = []
    for _ in range(n - 1):
        edges.append((int(data[pos]), int(data[pos + 1]))); pos += 2
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    nodes = sum(alive)
    links = sum(alive[u] * alive[v] for u, v in edges)
    q = int(data[pos]); pos += 1
    out = []
    for _ in range(q):
        planet, p = int(data[pos]), float(data[pos + 1]); pos += 2
        new = 1.0 - p
        nodes += new - alive[planet]
        links += (new - alive[planet]) * sum(alive[v] for v in neighbours[planet])
        alive[planet] = new
        out.append("%.5f" % (nodes - links))
    print("\n".join(out))

main()
