import sys
from operator import itemgetter
N = int(sys.stdin.readline())
L = []
for _ in range(N):
    a, b = map(int, sys.stdin.readline().split())
    L.append([a, b])
L.sort(key = itemgetter(1))
Count = 0
End = 0
for x in L:
    if x[0] >= End:
        Count += 1
        End = x[1]
print(Count)
