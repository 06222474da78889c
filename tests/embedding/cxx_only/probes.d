/* The application's probes; the count's type comes from a header the program shares. */
#include "app_types.h"

provider app {
    probe greeting(int number, const char *name);
    probe done(APP_COUNT count);
};
