import json, random
rng = random.Random(1001)
tests = ["2\n1 2\n-5 3\n", "1\n0 0\n", "1\n1000000000000 1000000000000\n", "1\n-1000000000000 -1000000000000\n"]
for size in (5, 50, 1000, 1000):
    pairs = [(rng.randint(-10**12, 10**12), rng.randint(-10**12, 10**12)) for _ in range(size)]
    tests.append(f"{size}\n" + "".join(f"{a} {b}\n" for a, b in pairs))
print(json.dumps(tests))
