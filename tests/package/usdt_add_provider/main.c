/* Fires the one probe every probes.d the tests write declares (add_provider_support.py's GOOD and its variants). */
#include "probes.h"

int main(void) {
    DEMO_TICK(1);
    return 0;
}
