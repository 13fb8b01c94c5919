import sys
MOD = 10**9+7
def solve():
    input = sys.stdin.readline
    N, K = map(int, input().split())
    S = list(map(int, input().split()))
    line = list(map(int, input().split()))
    B = line[0]
    broken = set(line[1:B+1])
    dp = [0]*(N+1)
    dp[0] = 1
    for i in range(1, N+1):
        if i in broken:
            continue
        t = 0
        for s in S:
            if i-s >= 0:
                t += dp[i-s]
        dp[i] = t % MOD
    print(dp[N])
solve()
