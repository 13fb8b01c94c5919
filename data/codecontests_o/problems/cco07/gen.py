import json, random
rng = random.Random(1007)
tests = ["5\n3 1 2 5 4\n", "1\n7\n", "6\n2 2 1 1 3 3\n"]
for size, top in ((100, 10**9), (10000, 10**9), (200000, 999)):
    tests.append(f"{size}\n" + " ".join(str(rng.randint(-top, top)) for _ in range(size)) + "\n")
print(json.dumps(tests))
