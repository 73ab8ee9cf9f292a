/* The arm64 capability bits the tests read from the kernel themselves, not
 * through cpu_features (the library's source), so that a wrong detection
 * cannot agree with itself. */
#ifndef QMM_TEST_ARM64_HWCAPS_H
#define QMM_TEST_ARM64_HWCAPS_H

#include <sys/auxv.h>

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1UL << 13)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP2_SVEI8MM
#define HWCAP2_SVEI8MM (1UL << 9)
#endif
#ifndef HWCAP2_SME
#define HWCAP2_SME (1UL << 23)
#endif
#ifndef HWCAP2_SME_I8I32
#define HWCAP2_SME_I8I32 (1UL << 26)
#endif

static inline int hwcap_neon(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
}

static inline int hwcap_dotprod(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
}

static inline int hwcap_i8mm(void)
{
    return (getauxval(AT_HWCAP2) & HWCAP2_I8MM) != 0;
}

static inline int hwcap_sve(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
}

static inline int hwcap_svei8mm(void)
{
    return (getauxval(AT_HWCAP2) & HWCAP2_SVEI8MM) != 0;
}

/* SME with its int8 outer products into int32 (SMOPA). */
static inline int hwcap_sme(void)
{
    const unsigned long both = HWCAP2_SME | HWCAP2_SME_I8I32;
    return (getauxval(AT_HWCAP2) & both) == both;
}

#endif
