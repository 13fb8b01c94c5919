#include "testlib.h"

// Exact checker: the zone count and the largest zone's size, nothing else.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int zones = ans.readInt();
    int largest = ans.readInt();
    int foundZones = ouf.readInt();
    int foundLargest = ouf.readInt();
    if (!ouf.seekEof()) quitf(_pe, "extra output after the two numbers");
    if (foundZones != zones) quitf(_wa, "expected %d zones, found %d", zones, foundZones);
    if (foundLargest != largest) quitf(_wa, "expected largest zone %d, found %d", largest, foundLargest);
    quitf(_ok, "%d zones, largest %d", zones, largest);
}
