/* The kernels compiled into this build (dispatch/kernel_list.h). */
#ifndef QMM_REGISTRY_H
#define QMM_REGISTRY_H

#include <stddef.h>

#include "../kernels/kernel.h"

size_t qmm_registry_count(void);
/* Kernel i in list order; NULL past the end. */
const qmm_kernel *qmm_registry_at(size_t i);
/* The kernel called name, or NULL. */
const qmm_kernel *qmm_registry_find(const char *name);
/* The whole list, for the selector. */
const qmm_kernel *const *qmm_registry_all(void);

#endif
