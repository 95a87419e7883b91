/* Shared by the libdnnl.so.1 test programs: compiled against the real DNNL 1.3 headers
 * (mxnet 1.7.0.post2 wheel), linked with -ldnnl against this project's libdnnl.so.1. */
#ifndef DNNL1_COMMON_H
#define DNNL1_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnl.h"

static int passed = 0, failed = 0;
#define CHECK(c)                                                              \
    do {                                                                      \
        if (c)                                                                \
            passed++;                                                         \
        else {                                                                \
            failed++;                                                         \
            if (failed < 30) printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); \
        }                                                                     \
    } while (0)
#define OK(call) CHECK((call) == dnnl_success)

static inline int finish(void) {
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

/* 1 when the library runs the 2.x formulas (RESAMPLE_DNNL1_RULES=v2), as it decides. */
static inline int v2_rules(void) {
    const char *v = getenv("RESAMPLE_DNNL1_RULES");
    return v && (!strcmp(v, "v2") || !strcmp(v, "2"));
}
#endif
