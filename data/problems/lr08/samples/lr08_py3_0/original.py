import sys
from collections import deque
from collections import defaultdict

def topo(n, edges):
    g = defaultdict(list)
    indeg = [0] * (n + 1)
    for a, b in edges:
        g[a].append(b)
        indeg[b] += 1
    q = deque([i for i in range(1, n + 1) if indeg[i] == 0])
    res = []
    while q:
        u = q.popleft()
        res.append(u)
        for v in g[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                q.append(v)
    if len(res) != n:
        return None
    else:
        return res

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
edges = []
for i in range(m):
    edges.append((int(data[2 + 2 * i]), int(data[3 + 2 * i])))
ans = topo(n, edges)
if ans == None:
    print("IMPOSSIBLE")
else:
    print(" ".join(map(str, ans)))
