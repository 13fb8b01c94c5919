import json, random
rng = random.Random(1006)
tests = ["4\n0 5 0 -1\n", "1\n0\n", "3\n1 2 3\n"]
for size in (10, 100, 1000):
    tests.append(f"{size}\n" + " ".join(str(rng.randint(-3, 3)) for _ in range(size)) + "\n")
print(json.dumps(tests))
