#include <bits/stdc++.h>
using namespace std;

const int N = 100005;
int pi_[N];
char s[N];

int main() {
    scanf("%s", s);
    int n = strlen(s);
    pi_[0] = 0;
    for (int i = 1; i < n; i++) {
        int k = pi_[i - 1];
        while (k > 0 && s[i] != s[k]) k = pi_[k - 1];
        if (s[i] == s[k]) k++;
        pi_[i] = k;
    }
    printf("%d\n", n - pi_[n - 1]);
    return 0;
}
