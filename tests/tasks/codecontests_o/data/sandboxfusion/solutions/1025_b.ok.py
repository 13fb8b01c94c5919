import sys

def primes_of(x):
    found = []
    d = 2
    while d * d <= x:
        if x % d == 0:
            found.append(d)
            while x % d == 0:
                x //= d
        d += 1
    if x > 1:
        found.append(x)
    return found

data = list(map(int, sys.stdin.read().split()))
n = data[0]
pairs = [(data[1 + 2 * i], data[2 + 2 * i]) for i in range(n)]
answer = -1
for p in primes_of(pairs[0][0]) + primes_of(pairs[0][1]):
    if all(a % p == 0 or b % p == 0 for a, b in pairs):
        answer = p
        break
print(answer)
