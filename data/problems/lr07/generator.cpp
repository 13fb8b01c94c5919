#include "testlib.h"

#include <algorithm>
#include <vector>

using namespace std;

// Types: random (k distinct lengths in 1..maxjump), small (the lengths 1..k: counts
// grow fastest, so the modulus matters early).
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int k = opt<int>("k");
    int b = opt<int>("b");
    int maxjump = opt<int>("maxjump", 50);
    string type = opt<string>("type", "random");

    vector<int> jumps;
    if (type == "small") {
        for (int i = 1; i <= k; i++) jumps.push_back(i);
    } else {
        vector<int> all(maxjump);
        for (int i = 0; i < maxjump; i++) all[i] = i + 1;
        shuffle(all.begin(), all.end());
        jumps.assign(all.begin(), all.begin() + k);
    }
    shuffle(jumps.begin(), jumps.end());

    b = min(b, n - 1);
    vector<int> steps(n - 1);
    for (int i = 0; i < n - 1; i++) steps[i] = i + 1;
    shuffle(steps.begin(), steps.end());
    vector<int> broken(steps.begin(), steps.begin() + b);
    sort(broken.begin(), broken.end());

    println(n, k);
    println(jumps);
    printf("%d", b);
    for (int w : broken) printf(" %d", w);
    printf("\n");
    return 0;
}
