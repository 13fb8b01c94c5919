print(sum(map(int, input().strip())))
