import sys
def main():
    data=sys.stdin.buffer.read().split()
    n,q=int(data[0]),int(data[1])
    a=data[2:2+n]
    P=[0]*(n+1)
    for i in range(n):
        P[i+1]=P[i]+int(a[i])
    out=[]
    idx=2+n
    for _ in range(q):
        l=int(data[idx]);r=int(data[idx+1]);idx+=2
        out.append(str(P[r]-P[l-1]))
    print("\n".join(out))
main()
