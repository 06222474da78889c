#include "probes.h"
int main(int argc, char **argv) {
  myapp::request_start(42, argv[0]);
  MYAPP_REQUEST_DONE(42, -argc, 7u);
  return myapp::request_done_enabled() ? 1 : 0;
}
