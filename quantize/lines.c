/* The portable instance of the line passes (baseline ISA: SSE2 on x86-64),
 * and the choice of instance. */
#define QMM_LINES_FLT float
#define QMM_LINES_KEY int32_t
#define QMM_LINES_TABLE qmm_lines_f32_generic
#include "lines_body.h"

#define QMM_LINES_FLT double
#define QMM_LINES_KEY int64_t
#define QMM_LINES_TABLE qmm_lines_f64_generic
#include "lines_body.h"

#include "../platform/cpu.h"
#include "lines_instances.h"

/* Instances by preference; the last needs nothing. */
static const struct {
    unsigned features;
    const qmm_lines *f32, *f64;
} instances[] = {
#if defined(__x86_64__)
    {QMM_CPU_AVX2, &qmm_lines_f32_avx2, &qmm_lines_f64_avx2},
#endif
    {0, &qmm_lines_f32_generic, &qmm_lines_f64_generic},
};

const qmm_lines *qmm_lines_pick(int is_f64)
{
    size_t i = 0;
    while (!qmm_cpu_has(instances[i].features))
        i++;
    return is_f64 ? instances[i].f64 : instances[i].f32;
}
