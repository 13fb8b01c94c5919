import sys
from collections import deque

def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    g = data[2:2 + n]
    sx = sy = tx = ty = 0
    for i in range(n):
        for j in range(m):
            if g[i][j] == 'S':
                sx, sy = i, j
            elif g[i][j] == 'T':
                tx, ty = i, j
    INF = -1
    D = [[INF] * m for _ in range(n)]
    D[sx][sy] = 0
    q = deque()
    q.append((sx, sy))
    while len(q) > 0:
        x, y = q.popleft()
        if x == tx and y == ty:
            break
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx = x + dx; ny = y + dy
            if nx < 0 or ny < 0 or nx >= n or ny >= m:
                continue
            if g[nx][ny] == '#':
                continue
            if D[nx][ny] != INF:
                continue
            D[nx][ny] = D[x][y] + 1
            q.append((nx, ny))
    print(D[tx][ty])

main()
