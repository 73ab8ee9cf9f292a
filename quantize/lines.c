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

/* Instances by preference (QMM_CPU_PICK); the last needs nothing. */
static const struct lines_instance {
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
    const struct lines_instance *in = QMM_CPU_PICK(instances);
    return is_f64 ? in->f64 : in->f32;
}
