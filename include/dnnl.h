/*
 * oneDNN compatibility: <dnnl.h> (the pre-2.x header path) for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef DNNL_COMPAT_DNNL_H
#define DNNL_COMPAT_DNNL_H

#include "oneapi/dnnl/dnnl.h"

#endif /* DNNL_COMPAT_DNNL_H */
