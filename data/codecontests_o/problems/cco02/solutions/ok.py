import math

r = int(input())
print("%.10f" % (math.pi * r * r))
