input()
print(" ".join(map(str, sorted(map(int, input().split())))))
