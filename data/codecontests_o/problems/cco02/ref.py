import math
r = int(input())
print(f"{math.pi * r * r:.12f}")
