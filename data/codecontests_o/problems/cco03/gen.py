import json
values = [12, 13, 2, 4, 97, 1000000007, 999999999989, 1000000000000, 600851475143, 49, 999966000289]
print(json.dumps([f"{n}\n" for n in values]))
