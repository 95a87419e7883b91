/*
 * oneDNN compatibility: <dnnl_config.h> (the pre-2.x header path) for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef DNNL_COMPAT_DNNL_CONFIG_H
#define DNNL_COMPAT_DNNL_CONFIG_H

#include "oneapi/dnnl/dnnl_config.h"

#endif /* DNNL_COMPAT_DNNL_CONFIG_H */
