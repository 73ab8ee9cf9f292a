/* The portable instance of the Chinese-remainder passes (baseline ISA: SSE2
 * on x86-64, NEON on arm64), and the choice of instance. */
#define QMM_CRT_PASSES_TABLE qmm_crt_passes_generic
#include "crt_passes_body.h"

#include "../platform/cpu.h"

/* Instances by preference (QMM_CPU_PICK); the last needs nothing. AVX-512 F/BW/VL code
 * runs behind the VNNI tier, which implies them. */
static const struct {
    unsigned features;
    const qmm_crt_passes *passes;
} instances[] = {
#if defined(__x86_64__)
    {QMM_CPU_AVX512VNNI, &qmm_crt_passes_avx512},
    {QMM_CPU_AVX2, &qmm_crt_passes_avx2},
#endif
    {0, &qmm_crt_passes_generic},
};

const qmm_crt_passes *qmm_crt_passes_pick(void)
{
    return QMM_CPU_PICK(instances)->passes;
}
