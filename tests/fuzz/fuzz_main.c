/* Without libFuzzer (the ordinary build): run each file named on the
 * command line, or each file in each directory named, through the
 * harness once.  This is how the kept corpus is a regression test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    gchar *data;
    gsize len;
    GError *err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        fprintf(stderr, "%s: %s\n", path, err->message);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    g_free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            GDir *d = g_dir_open(argv[i], 0, NULL);
            const char *name;
            while (d && (name = g_dir_read_name(d))) {
                g_autofree char *p = g_build_filename(argv[i], name, NULL);
                bad += run_file(p);
                n++;
            }
            if (d)
                g_dir_close(d);
        } else {
            bad += run_file(argv[i]);
            n++;
        }
    }
    printf("%d inputs ran, %d unreadable\n", n, bad);
    return bad != 0 || n == 0;
}
