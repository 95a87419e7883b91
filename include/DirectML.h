/*
 * DirectML.h compatibility header for libresample.
 *
 * Programs written against DirectML's resample operator descriptors include this file
 * and get the same type names, field orders, sizes and enum values (FL 6.4, LP64), plus
 * the host C API DMLCreateOperator / DMLExecuteOperator / DMLReleaseOperator /
 * DMLCalcBufferTensorSize. Everything is declared in the generated resample.h; this file
 * only adds what cbindgen cannot express.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef LIBRESAMPLE_DIRECTML_H
#define LIBRESAMPLE_DIRECTML_H

#include "resample.h"

/* The feature level whose definitions this header provides. */
#ifndef DML_TARGET_VERSION
#define DML_TARGET_VERSION 0x6400
#endif

#ifndef SUCCEEDED
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#endif
#ifndef FAILED
#define FAILED(hr) (((HRESULT)(hr)) < 0)
#endif
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

#endif /* LIBRESAMPLE_DIRECTML_H */
