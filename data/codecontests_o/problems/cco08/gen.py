import json, random
rng = random.Random(1008)
tests = ["2\n4\n7\n", "1\n0\n", "1\n1000000000000000000\n", "1\n999999999999999999\n"]
for size in (10, 100):
    tests.append(f"{size}\n" + "".join(f"{rng.randint(0, 10**18)}\n" for _ in range(size)))
tests.append("3\n999999999999999997\n1000000000000000000\n999999999999999999\n")
print(json.dumps(tests))
