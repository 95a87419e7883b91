/*
 * oneDNN compatibility: <dnnl_version.h> (the pre-2.x header path) for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef DNNL_COMPAT_DNNL_VERSION_H
#define DNNL_COMPAT_DNNL_VERSION_H

#include "oneapi/dnnl/dnnl_version.h"

#endif /* DNNL_COMPAT_DNNL_VERSION_H */
