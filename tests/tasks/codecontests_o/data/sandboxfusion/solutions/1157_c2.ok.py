n = int(input())
a = list(map(int, input().split()))
l, r = 0, n - 1
last = 0
moves = []
while l <= r:
    can_l = a[l] > last
    can_r = a[r] > last
    if can_l and can_r and a[l] == a[r] and l != r:
        left = 1
        while l + left <= r and a[l + left] > a[l + left - 1]:
            left += 1
        right = 1
        while r - right >= l and a[r - right] > a[r - right + 1]:
            right += 1
        moves += ["L"] * left if left > right else ["R"] * right
        break
    if can_l and (not can_r or a[l] < a[r]):
        last = a[l]
        l += 1
        moves.append("L")
    elif can_r:
        last = a[r]
        r -= 1
        moves.append("R")
    else:
        break
print(len(moves))
print("".join(moves))
