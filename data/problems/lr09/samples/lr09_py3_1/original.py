# sweep: count how many lectures are running at every start time
from sys import stdin
import os
import heapq

def readints():
    return list(map(int, stdin.readline().split()))

N = int(stdin.readline())
lectures = list()
for i in range(N):
    s, e = readints()
    lectures.append([s, e])

lectures.sort(key = lambda x: x[0])

ends = []
best = 0
for lec in lectures:
    while ends and ends[0] <= lec[0]:
        heapq.heappop(ends)
    heapq.heappush(ends, lec[1])
    best = max(best, len(ends))
print(best)
