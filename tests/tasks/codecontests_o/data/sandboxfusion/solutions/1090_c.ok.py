import sys

def main():
    data = sys.stdin.read().split()
    pos = 0
    n, m = int(data[0]), int(data[1]); pos = 2
    boxes = []
    for _ in range(n):
        s = int(data[pos]); pos += 1
        boxes.append(set(int(x) for x in data[pos:pos + s])); pos += s
    total = sum(len(b) for b in boxes)
    q, rem = divmod(total, n)
    order = sorted(range(n), key=lambda i: (len(boxes[i]), i))
    target = [q] * n
    for i in order[n - rem:]:
        target[i] = q + 1
    givers = [i for i in reversed(order) if len(boxes[i]) > target[i]]
    receivers = [i for i in order if len(boxes[i]) < target[i]]
    moves = []
    gi = ri = 0
    while gi < len(givers) and ri < len(receivers):
        g, r = givers[gi], receivers[ri]
        count = min(len(boxes[g]) - target[g], target[r] - len(boxes[r]))
        chosen = sorted(boxes[g] - boxes[r])[:count]
        for kind in chosen:
            boxes[g].remove(kind)
            boxes[r].add(kind)
            moves.append(f"{g + 1} {r + 1} {kind}")
        if len(boxes[g]) == target[g]:
            gi += 1
        if len(boxes[r]) == target[r]:
            ri += 1
    print(len(moves))
    if moves:
        print("\n".join(moves))

main()
