t = int(input())
print("\n".join("YES" if int(input()) % 2 == 0 else "NO" for _ in range(t)))
