#include <bits/stdc++.h>
#define ll long long
#define rep(i,a,b) for(int i=a;i<b;i++)
using namespace std;

ll pre[100005];

int main(){
    int n,q;
    scanf("%d %d",&n,&q);
    rep(i,1,n+1){
        int x;
        scanf("%d",&x);
        pre[i]=pre[i-1]+x;
    }
    while(q--){
        int l,r;
        scanf("%d %d",&l,&r);
        printf("%lld\n",pre[r]-pre[l-1]);
    }
    return 0;
}
