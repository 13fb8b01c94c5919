n = int(input())
d = 2
answer = -1
while d * d <= n:
    if n % d == 0:
        answer = d
        break
    d += 1
print(answer)
