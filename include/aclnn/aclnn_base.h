/*
 * libresample compatibility header for CANN's <aclnn/aclnn_base.h>.
 * aclnn base API: aclnnStatus, ACLNN_SUCCESS, aclnnInit, ...
 * Everything is declared in the generated resample.h; this file only provides the
 * include path that CANN programs use (and the ACLNN_API / ACL_FUNC_VISIBILITY macros).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef RESAMPLE_COMPAT_ACLNN_ACLNN_BASE_H
#define RESAMPLE_COMPAT_ACLNN_ACLNN_BASE_H

#include "../resample.h"

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif
#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

#endif /* RESAMPLE_COMPAT_ACLNN_ACLNN_BASE_H */
