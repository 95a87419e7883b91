/* Shared helpers of the robust_*.c programs: a seeded PRNG (splitmix64), extreme-value
 * generators and the pass/fail counter. Buffers handed to the library are malloc'd at
 * exactly the size the API promises, so valgrind reports any byte read or written
 * outside them. Seed: env ROBUST_SEED; cases: env ROBUST_CASES. */
#ifndef ROBUST_COMMON_H
#define ROBUST_COMMON_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static unsigned long long g_case;
#define CHECK(c)                                                                              \
    do {                                                                                      \
        if (c) passed++;                                                                      \
        else {                                                                                \
            failed++;                                                                         \
            if (failed < 50) printf("FAIL case %llu %s:%d %s\n", g_case, __FILE__, __LINE__, #c); \
        }                                                                                     \
    } while (0)

static uint64_t rs;
static __attribute__((unused)) uint64_t rnext(void) {
    uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static __attribute__((unused)) int64_t rrange(int64_t lo, int64_t hi) { return lo + (int64_t)(rnext() % (uint64_t)(hi - lo + 1)); }
static __attribute__((unused)) int rchance(double p) { return (double)(rnext() >> 11) / 9007199254740992.0 < p; }
static __attribute__((unused)) int64_t ri64x(void) {
    switch (rnext() % 8) {
    case 0: case 1: case 2: return rrange(-2, 17);
    case 3: { const int64_t v[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, 1LL << 62}; return v[rnext() % 4]; }
    case 4: { const int64_t v[] = {1LL << 31, (1LL << 31) - 1, 1LL << 32, -(1LL << 31), 4294967295LL}; return v[rnext() % 5]; }
    case 5: return (int64_t)1 << (rnext() % 63);
    case 6: return -((int64_t)1 << (rnext() % 63));
    default: return (int64_t)rnext();
    }
}
static __attribute__((unused)) uint32_t ru32x(void) {
    switch (rnext() % 6) {
    case 0: case 1: case 2: return (uint32_t)rrange(0, 17);
    case 3: { const uint32_t v[] = {0xffffffffu, 0xfffffffeu, 1u << 31, (1u << 31) - 1}; return v[rnext() % 4]; }
    case 4: return 1u << (rnext() % 32);
    default: return (uint32_t)rnext();
    }
}
static __attribute__((unused)) float rf32x(void) {
    union { uint32_t u; float f; } b;
    switch (rnext() % 10) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 0.0f;
    case 4: b.u = 1; return b.f;
    case 5: return 3e38f;
    case 6: return -1.0f;
    case 7: b.u = (uint32_t)rnext(); return b.f;
    default: { const float v[] = {0.25f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 0.3f}; return v[rnext() % 7]; }
    }
}
static __attribute__((unused)) void rfill(void *p, size_t n) {
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++) c[i] = (unsigned char)rnext();
}
static __attribute__((unused)) unsigned long long env_ull(const char *name, unsigned long long def) {
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : def;
}
#define ROBUST_BEGIN(defcases)                                                      \
    unsigned long long seed = env_ull("ROBUST_SEED", 0x5eed20240badf00dULL);        \
    unsigned long long ncases = env_ull("ROBUST_CASES", defcases);                  \
    printf("seed %#llx, %llu cases\n", seed, ncases)
#define CASE_SEED(i) (rs = seed ^ ((i) * 0x9e3779b97f4a7c15ULL), g_case = (i), rnext())
#define ROBUST_END()                                          \
    printf("%d passed, %d failed\n", passed, failed);        \
    return failed ? 1 : 0
#endif
