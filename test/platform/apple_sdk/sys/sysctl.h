/* Stands in for Apple's <sys/sysctl.h> in test_cpu_apple: the one
 * declaration platform/cpu_aarch64_apple.c uses, as Apple's SDK declares it
 * (sysctlbyname(3)). */
#ifndef QMM_TEST_FAKE_SYS_SYSCTL_H
#define QMM_TEST_FAKE_SYS_SYSCTL_H

#include <stddef.h>

int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
