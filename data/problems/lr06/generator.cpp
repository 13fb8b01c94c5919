#include "testlib.h"

#include <string>
#include <vector>

using namespace std;

// Types: random (shelves with probability density%), snake (one long winding zone),
// checker (a checkerboard: every free cell is its own zone), full (shelves everywhere).
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int m = opt<int>("m");
    string type = opt<string>("type", "random");
    int density = opt<int>("density", 40);

    vector<string> grid(n, string(m, '.'));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            if (type == "random" && rnd.next(100) < density) grid[i][j] = '#';
            if (type == "checker" && (i + j) % 2 == 1) grid[i][j] = '#';
            if (type == "full") grid[i][j] = '#';
        }
    }
    if (type == "snake") {
        // Shelf rows at odd indices, each with one gap alternating between the two ends.
        for (int i = 1; i < n; i += 2) {
            grid[i] = string(m, '#');
            grid[i][(i / 2) % 2 == 0 ? m - 1 : 0] = '.';
        }
    }

    println(n, m);
    for (int i = 0; i < n; i++) println(grid[i]);
    return 0;
}
