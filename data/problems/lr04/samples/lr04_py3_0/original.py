import sys

def main():
    input_data = sys.stdin.read().split()
    n = int(input_data[0])
    meetings = []
    for i in range(n):
        l = int(input_data[1 + 2 * i])
        r = int(input_data[2 + 2 * i])
        meetings.append((r, l))
    meetings.sort()
    ans = 0
    cur = -1
    for r, l in meetings:
        if l >= cur:
            ans = ans + 1
            cur = r
    print(ans)

if __name__ == '__main__':
    main()
