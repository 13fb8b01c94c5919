import json, random
rng = random.Random(1005)
tests = ["3\n1 -2 7\n", "1\n-5\n", "4\n-3 -1 -2 -9\n"]
for size in (10, 1000, 10000):
    tests.append(f"{size}\n" + " ".join(str(rng.randint(-10**9, 10**9)) for _ in range(size)) + "\n")
print(json.dumps(tests))
