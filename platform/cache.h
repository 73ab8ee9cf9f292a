/*
 * The data caches of the CPU the library runs on, for the blocking
 * (compute/blocking.c): read once per process. On x86 cpu_features reads
 * them from CPUID; elsewhere (cpu_features 0.7 has no cache information for
 * arm64) Linux's sysfs gives them; a size neither knows takes a default that
 * suits the cores this project has met (32 KiB L1, 512 KiB L2).
 */
#ifndef QMM_CACHE_H
#define QMM_CACHE_H

#include <stddef.h>

typedef struct qmm_cpu_caches {
    size_t l1d;  /* one core's level-1 data cache, bytes */
    size_t l2;   /* one core's level-2 cache, bytes */
} qmm_cpu_caches;

/* The caches of this CPU (never 0). */
qmm_cpu_caches qmm_cpu_cache_sizes(void);

#endif
