import json, random
rng = random.Random(1004)
tests = ["2\n100 10\n100 30\n", "1\n1 3\n", "3\n7 3\n1 1\n2 9\n"]
for size in (10, 1000, 20000):
    rows = [(rng.randint(1, 10**4), rng.randint(1, 10**4)) for _ in range(size)]
    tests.append(f"{size}\n" + "".join(f"{d} {t}\n" for d, t in rows))
print(json.dumps(tests))
