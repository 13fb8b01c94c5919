import sys
from collections import deque

def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    g = data[2:2 + n]
    SEEN = [[False] * m for _ in range(n)]
    zones = 0; best = 0
    for i in range(n):
        for j in range(m):
            if g[i][j] != '.' or SEEN[i][j]:
                continue
            zones += 1
            size = 0
            q = deque([(i, j)])
            SEEN[i][j] = True
            while len(q) > 0:
                x, y = q.popleft()
                size += 1
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    nx = x + dx; ny = y + dy
                    if nx < 0 or ny < 0 or nx >= n or ny >= m:
                        continue
                    if g[nx][ny] == '#' or SEEN[nx][ny]:
                        continue
                    SEEN[nx][ny] = True
                    q.append((nx, ny))
            best = max(best, size)
    print(zones, best)

main()
