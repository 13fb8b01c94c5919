#include "testlib.h"
#include <string>
#include <vector>

using namespace std;

// Grid maps. type: random (walls with probability p%, S and T random) | maze (walls in every
// odd column with one gap alternating bottom/top: a long snake path) | blocked (S top-left,
// T bottom-right walled in) | open (no walls)
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int h = opt<int>("h");
    int w = opt<int>("w");
    int p = opt<int>("p", 30);
    string type = opt<string>("type", "random");

    vector<string> g(h, string(w, '.'));
    if (type == "random") {
        for (auto& row : g)
            for (auto& c : row)
                if (rnd.next(100) < p) c = '#';
    } else if (type == "maze") {
        for (int j = 1; j < w; j += 2) {
            int gap = (j / 2) % 2 == 0 ? h - 1 : 0;
            for (int i = 0; i < h; i++)
                if (i != gap) g[i][j] = '#';
        }
    }
    int si = 0, sj = 0, ti = h - 1, tj = w - 1;
    if (type == "random" || type == "open") {
        si = rnd.next(h);
        sj = rnd.next(w);
        do {
            ti = rnd.next(h);
            tj = rnd.next(w);
        } while (ti == si && tj == sj);
    } else if (type == "maze") {
        while (g[ti][tj] == '#') ti--;  // the last column may be a wall column
    } else if (type == "blocked") {
        g[ti - 1][tj] = '#';
        g[ti][tj - 1] = '#';
    }
    g[si][sj] = 'S';
    g[ti][tj] = 'T';
    printf("%d %d\n", h, w);
    for (auto& row : g) printf("%s\n", row.c_str());
    return 0;
}
