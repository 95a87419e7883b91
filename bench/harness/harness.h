/* harness.h — the problem description shared by the peer-benchmark harness (bench/peers.py
 * loads target/bench/libharness.so with ctypes). Each backend lives in its own translation
 * unit because the headers it needs (oneDNN 2.6, oneDNN 3.x, libresample's DirectML and
 * Ascend faces) declare the same names differently. */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H
#include <stddef.h>
#include <stdint.h>

enum { ALG_NEAREST = 0, ALG_LINEAR = 1, ALG_LINEAR_AA = 2 };
enum { DT_F32 = 0, DT_BF16 = 1, DT_U8 = 2 };
enum { LAYOUT_PLAIN = 0, LAYOUT_CLAST = 1, LAYOUT_BLOCK16 = 2 };
/* DirectML face: FACE_DML writes every logical dim, FACE_DML_3D drops N (must be 1) */
enum { FACE_DEFAULT = 0, FACE_DML_3D = 1 };

/* Must match the ctypes Structure in bench/peers.py. Shapes are the FORWARD shapes
 * (N, C, spatial...); for backward, src is diff_dst (out-sized), dst is diff_src. */
typedef struct {
    int32_t bwd, alg, dt, layout, ndims, face;
    int64_t in[5], out[5];
} hprob_t;

/* a backend: opened once per library path, then one instance per problem */
typedef struct {
    void *(*open)(const char *path);
    void *(*setup)(void *lib, const hprob_t *p, void *src, size_t src_bytes, void *dst,
            size_t dst_bytes, char *impl, size_t impl_len);
    int (*run)(void *inst); /* one execution, synchronous; 0 on success */
    void (*destroy)(void *inst);
} backend_t;

extern const backend_t dnnl2_backend, dnnl3_backend, dml_backend, acl_backend;

/* error text for the last failed call; "refused: ..." when the library declined the problem */
void h_seterr(const char *fmt, ...);
#endif
