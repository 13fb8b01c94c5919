# greedy: always take the meeting that finishes first
from sys import stdin
import os

def readints():
    return list(map(int, stdin.readline().split()))

N = int(stdin.readline())
meetings = list()
for i in range(N):
    s, e = readints()
    meetings.append([s, e])

meetings.sort(key = lambda x: (x[1], x[0]))

count = 0
END = 0
for m in meetings:
    if m[0] >= END:
        count += 1
        END = m[1]
print(count)
