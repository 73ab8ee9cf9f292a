#include "cpu.h"

/*
 * The instructions are written as words so that any assembler takes them
 * whatever the library's -march (the kernels that need SVE or SME are gated
 * by the assembler, cmake/kernels_arm64.cmake; this file is not): cntb x0 and
 * rdsvl x0, #1. Each runs only where its feature is in effect, where it
 * cannot trap. RDSVL is legal outside streaming mode.
 */
#if defined(__aarch64__)
static unsigned read_sve_bytes(void)
{
    unsigned long bytes;
    __asm__ volatile(".inst 0x0420e3e0\n\tmov %0, x0" : "=r"(bytes) : : "x0");
    return (unsigned)bytes;
}

static unsigned read_sme_bytes(void)
{
    unsigned long bytes;
    __asm__ volatile(".inst 0x04bf5820\n\tmov %0, x0" : "=r"(bytes) : : "x0");
    return (unsigned)bytes;
}

unsigned qmm_cpu_vector_bytes(unsigned feature)
{
    if (feature == QMM_CPU_SVE && qmm_cpu_has(QMM_CPU_SVE))
        return read_sve_bytes();
    if (feature == QMM_CPU_SME && qmm_cpu_has(QMM_CPU_SME))
        return read_sme_bytes();
    return 0;
}
#else
unsigned qmm_cpu_vector_bytes(unsigned feature)
{
    (void)feature;
    return 0;
}
#endif
