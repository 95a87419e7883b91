/*
 * oneDNN 2.6 compatibility: <oneapi/dnnl/dnnl.h> for libresample.
 * A C program written for oneDNN 2.6's resampling primitive compiles unchanged against
 * this header and links with -lresample. All declarations come from the generated
 * resample.h (plus the macros of dnnl_types.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef ONEAPI_DNNL_DNNL_H
#define ONEAPI_DNNL_DNNL_H

#include "oneapi/dnnl/dnnl_config.h"
#include "oneapi/dnnl/dnnl_types.h"
#include "oneapi/dnnl/dnnl_version.h"

#endif /* ONEAPI_DNNL_DNNL_H */
