from collections import deque
import sys
input = sys.stdin.readline

H, W = map(int, input().split())
G = [input().strip() for _ in range(H)]
for i in range(H):
    for j in range(W):
        if G[i][j] == 'S': s = (i, j)
        if G[i][j] == 'T': t = (i, j)
D = [[-1]*W for _ in range(H)]
D[s[0]][s[1]] = 0
dq = deque([s])
while dq:
    x, y = dq.popleft()
    for dx, dy in ((1,0),(-1,0),(0,1),(0,-1)):
        nx, ny = x+dx, y+dy
        if 0 <= nx < H and 0 <= ny < W and G[nx][ny] != '#' and D[nx][ny] == -1:
            D[nx][ny] = D[x][y]+1
            dq.append((nx, ny))
print(D[t[0]][t[1]])
