/*
 * oneDNN compatibility: <dnnl_debug.h> (the pre-2.x header path) for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef DNNL_COMPAT_DNNL_DEBUG_H
#define DNNL_COMPAT_DNNL_DEBUG_H

#include "oneapi/dnnl/dnnl_debug.h"

#endif /* DNNL_COMPAT_DNNL_DEBUG_H */
