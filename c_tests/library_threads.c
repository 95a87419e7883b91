/* Library-level API: version string and thread control. */
#include <stdio.h>
#include <string.h>
#include "resample.h"

static int passed, failed;
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

int main(void) {
    const char *v = resample_version_string();
    CHECK(v != NULL && strchr(v, '.') != NULL);
    int def = resample_get_num_threads();
    CHECK(def >= 1);
    resample_set_num_threads(3);
    CHECK(resample_get_num_threads() == 3);
    resample_set_num_threads(-5); /* ignored */
    CHECK(resample_get_num_threads() == 3);
    resample_set_num_threads(0); /* back to the default */
    CHECK(resample_get_num_threads() == def);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
