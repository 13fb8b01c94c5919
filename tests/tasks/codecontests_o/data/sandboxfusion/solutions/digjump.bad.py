s = input().strip()
print(len(s) - 1)  # walks digit by digit, never jumps between equal digits
