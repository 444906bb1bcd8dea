/* A dynamically linked job: if it ever runs natively on the worker, it
 * leaves a marker the test looks for.  seccomp-emu runs static programs
 * only, so under the wrapper it never starts. */
#include <stdio.h>

int main(int argc, char **argv)
{
    char path[256];
    snprintf(path, sizeof path, "/home/gridder/markers/%s", argc > 1 ? argv[1] : "dynamic");
    FILE *f = fopen(path, "w");
    return f ? 0 : 1;
}
