import json
print(json.dumps([f"{r}\n" for r in (1, 2, 3, 7, 10, 99, 1234, 5000, 9999, 10000)]))
