t = int(input())
for _ in range(t):
    a, b, q = map(int, input().split())
    answers = []
    for _ in range(q):
        l, r = map(int, input().split())
        answers.append(sum(1 for x in range(l, r + 1) if (x % a) % b != (x % b) % a))
    print(*answers)
