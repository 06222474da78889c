/* Greets each name on its command line through the greet library. */
#include <greet.h>

int main(int argc, char **argv) {
    int index;
    for (index = 1; index < argc; ++index) {
        greet(argv[index]);
    }
    return 0;
}
