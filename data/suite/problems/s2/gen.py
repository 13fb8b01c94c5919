import json
print(json.dumps(["3\n1 5 2\n", "4\n7 1 7 3\n", "1\n42\n", "5\n9 9 9 1 9\n", "6\n1 2 3 4 5 6\n"]))
