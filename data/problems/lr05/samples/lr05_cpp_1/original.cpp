#include <iostream>
#include <string>
#include <vector>
using namespace std;

int* build(const string& s) {
    int n = s.size();
    int* z = new int[n];
    for (int i = 0; i < n; i++) z[i] = 0;
    int l = 0, r = 0;
    for (int i = 1; i < n; i++) {
        if (i < r) z[i] = min(r - i, z[i - l]);
        while (i + z[i] < n && s[z[i]] == s[i + z[i]]) z[i]++;
        if (i + z[i] > r) { l = i; r = i + z[i]; }
    }
    return z;
}

int main() {
    string s;
    cin >> s;
    int n = s.size();
    int* z = build(s);
    int ans = n;
    for (int p = 1; p < n; p++) {
        if (p + z[p] == n) { ans = p; break; }
    }
    cout << ans << endl;
    delete[] z;
    return 0;
}
