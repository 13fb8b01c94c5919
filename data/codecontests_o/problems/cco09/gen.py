import json, random
rng = random.Random(1009)
tests = ["4\n-1 3 -2 5\n", "1\n-7\n", "3\n-1 -2 -3\n"]
for size, top in ((10, 10**9), (1000, 10**9), (20000, 1000)):
    tests.append(f"{size}\n" + " ".join(str(rng.randint(-top, top)) for _ in range(size)) + "\n")
print(json.dumps(tests))
