import sys
input = sys.stdin.readline

WHITE, GRAY, BLACK = 0, 1, 2

def Solve():
    N, M = map(int, input().split())
    G = [[] for _ in range(N + 1)]
    for _ in range(M):
        a, b = map(int, input().split())
        G[a].append(b)
    color = [WHITE] * (N + 1)
    post = []
    for s in range(1, N + 1):
        if color[s] != WHITE: continue
        stack = [(s, 0)]
        color[s] = GRAY
        while stack:
            u, idx = stack[-1]
            if idx < len(G[u]):
                stack[-1] = (u, idx + 1)
                v = G[u][idx]
                if color[v] == GRAY:
                    return None
                elif color[v] == WHITE:
                    color[v] = GRAY
                    stack.append((v, 0))
            else:
                color[u] = BLACK
                post.append(u)
                stack.pop()
    post.reverse()
    return post

res = Solve()
if res is None: print("IMPOSSIBLE")
else: print(*res)
