import math

r = int(input())
print("%.2f" % (math.pi * r * r))
