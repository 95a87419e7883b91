/*
 * oneDNN compatibility: <dnnl_types.h> (the pre-2.x header path) for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef DNNL_COMPAT_DNNL_TYPES_H
#define DNNL_COMPAT_DNNL_TYPES_H

#include "oneapi/dnnl/dnnl_types.h"

#endif /* DNNL_COMPAT_DNNL_TYPES_H */
