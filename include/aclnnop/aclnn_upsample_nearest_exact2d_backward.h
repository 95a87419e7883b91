/*
 * libresample compatibility header for CANN's <aclnnop/aclnn_upsample_nearest_exact2d_backward.h>.
 * aclnn upsample-nearest operator (exact2d_backward): GetWorkspaceSize + run pair.
 * Everything is declared in the generated resample.h; this file only provides the
 * include path that CANN programs use (and the ACLNN_API / ACL_FUNC_VISIBILITY macros).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef RESAMPLE_COMPAT_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H
#define RESAMPLE_COMPAT_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H

#include "../resample.h"

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif
#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

#endif /* RESAMPLE_COMPAT_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H */
