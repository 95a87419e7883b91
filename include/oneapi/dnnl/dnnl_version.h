/*
 * oneDNN 2.6 compatibility: <oneapi/dnnl/dnnl_version.h> for libresample.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef ONEAPI_DNNL_DNNL_VERSION_H
#define ONEAPI_DNNL_DNNL_VERSION_H

#define DNNL_VERSION_MAJOR 2
#define DNNL_VERSION_MINOR 6
#define DNNL_VERSION_PATCH 3
#define DNNL_VERSION_HASH "libresample"

#endif /* ONEAPI_DNNL_DNNL_VERSION_H */
