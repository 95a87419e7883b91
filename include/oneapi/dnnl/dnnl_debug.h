/*
 * oneDNN 2.6 compatibility: <oneapi/dnnl/dnnl_debug.h> for libresample.
 * The *2str functions are declared in the generated resample.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef ONEAPI_DNNL_DNNL_DEBUG_H
#define ONEAPI_DNNL_DNNL_DEBUG_H

#include "oneapi/dnnl/dnnl_config.h"
#include "oneapi/dnnl/dnnl_types.h"
#include "oneapi/dnnl/dnnl_version.h"

#endif /* ONEAPI_DNNL_DNNL_DEBUG_H */
