/*
 * oneDNN 2.6 compatibility: <oneapi/dnnl/dnnl_config.h> for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef ONEAPI_DNNL_DNNL_CONFIG_H
#define ONEAPI_DNNL_DNNL_CONFIG_H

#include "oneapi/dnnl/dnnl_types.h"

#ifndef DNNL_API
#define DNNL_API
#endif
#ifndef DNNL_DEPRECATED
#if defined(__GNUC__)
#define DNNL_DEPRECATED __attribute__((deprecated))
#else
#define DNNL_DEPRECATED
#endif
#endif

/* libresample runs on the CPU with its own thread pool (sized like OpenMP: OMP_NUM_THREADS). */
#define DNNL_CPU_THREADING_RUNTIME DNNL_RUNTIME_OMP
#define DNNL_CPU_RUNTIME DNNL_RUNTIME_OMP
#define DNNL_GPU_RUNTIME DNNL_RUNTIME_NONE
#define DNNL_ENABLE_CONCURRENT_EXEC

#endif /* ONEAPI_DNNL_DNNL_CONFIG_H */
