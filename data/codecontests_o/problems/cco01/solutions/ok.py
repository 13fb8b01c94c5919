import sys

def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    out = []
    for i in range(t):
        out.append(str(int(data[1 + 2 * i]) + int(data[2 + 2 * i])))
    sys.stdout.write("\n".join(out) + "\n")

main()
