/* A sys/sdt.h probe with a semaphore, which test_list.py links with lld two ways: with the
   semaphore on a file page of the GNU_RELRO segment, and with segments on pages of their own. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

__extension__ unsigned short sdtsem_guarded_semaphore __attribute__((unused, section(".probes")));

int main(void) {
    if (sdtsem_guarded_semaphore) {
        STAP_PROBE1(sdtsem, guarded, 1);
    }
    return 0;
}
