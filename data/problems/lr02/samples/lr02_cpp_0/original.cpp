#include <bits/stdc++.h>
using namespace std;

#define MAXN 305
typedef pair<int,int> pii;

char g[MAXN][MAXN];
int dist_[MAXN][MAXN];
int dx[4]={-1,1,0,0};
int dy[4]={0,0,-1,1};
int h,w;

int bfs(int sx,int sy,int tx,int ty){
    memset(dist_,-1,sizeof(dist_));
    queue<pii> q;
    q.push(pii(sx,sy));
    dist_[sx][sy]=0;
    while(!q.empty()){
        pii cur=q.front();q.pop();
        int x=cur.first,y=cur.second;
        if(x==tx&&y==ty) return dist_[x][y];
        for(int d=0;d<4;d++){
            int nx=x+dx[d],ny=y+dy[d];
            if(nx<0||ny<0||nx>=h||ny>=w) continue;
            if(g[nx][ny]=='#'||dist_[nx][ny]!=-1) continue;
            dist_[nx][ny]=dist_[x][y]+1;
            q.push(pii(nx,ny));
        }
    }
    return -1;
}

int main(){
    scanf("%d %d",&h,&w);
    int sx=0,sy=0,tx=0,ty=0;
    for(int i=0;i<h;i++){
        scanf("%s",g[i]);
        for(int j=0;j<w;j++){
            if(g[i][j]=='S') sx=i,sy=j;
            if(g[i][j]=='T') tx=i,ty=j;
        }
    }
    printf("%d\n",bfs(sx,sy,tx,ty));
    return 0;
}
