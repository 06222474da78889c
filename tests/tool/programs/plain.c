/* A program without probes. */
int main(void) {
    return 0;
}
