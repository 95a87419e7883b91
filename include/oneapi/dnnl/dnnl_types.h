/*
 * oneDNN 2.6 compatibility: <oneapi/dnnl/dnnl_types.h> for libresample.
 * The types, enum values and struct layouts come from the generated resample.h; this
 * header adds what cbindgen cannot express.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef ONEAPI_DNNL_DNNL_TYPES_H
#define ONEAPI_DNNL_DNNL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "resample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A wildcard value for dimensions unknown at primitive creation time. */
#define DNNL_RUNTIME_DIM_VAL INT64_MIN
/* A size_t counterpart of DNNL_RUNTIME_DIM_VAL. */
#define DNNL_RUNTIME_SIZE_VAL ((size_t)DNNL_RUNTIME_DIM_VAL)
static const union {
    unsigned u;
    float f;
} DNNL_RUNTIME_F32_VAL_REP = {0x7fc000d0};
#define DNNL_RUNTIME_F32_VAL (DNNL_RUNTIME_F32_VAL_REP.f)
static const int DNNL_RUNTIME_S32_VAL_REP = INT32_MIN;
#define DNNL_RUNTIME_S32_VAL DNNL_RUNTIME_S32_VAL_REP

/* Memory handle values for dnnl_memory_create. */
#define DNNL_MEMORY_NONE (NULL)
#define DNNL_MEMORY_ALLOCATE ((void *)(size_t)-1)

/* Argument index of a post-op's input (e.g. the src1 of a binary post-op). */
#define DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) \
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * ((idx) + 1))

typedef const struct dnnl_engine *const_dnnl_engine_t;

#ifdef __cplusplus
}
#endif

#endif /* ONEAPI_DNNL_DNNL_TYPES_H */
