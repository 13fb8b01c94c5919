n = input().strip()
m = input().strip()
digits = sorted(n)
if digits[0] == "0" and len(digits) > 1:
    for i, d in enumerate(digits):
        if d != "0":
            digits[0], digits[i] = digits[i], digits[0]
            break
print("OK" if "".join(digits) == m else "WRONG_ANSWER")
