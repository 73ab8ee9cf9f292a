#include "sanity.h"

#include <math.h>

/* The bounds on uniform data: a kind of method, from how many slices or
 * moduli on (0: whatever its count). */
static const struct bound {
    compare_method_kind kind;
    unsigned from_count;
    double bound;
} bounds[] = {
    {COMPARE_QMM_SGEMM_I8, 0, COMPARE_SGEMM_I8_BOUND},
    {COMPARE_QMM_SGEMM_CRT, QMM_CRT_FP32_MODULI, COMPARE_SGEMM_CRT_BOUND},
    {COMPARE_QMM_DGEMM_I8, QMM_FP64_SLICES, COMPARE_DGEMM_I8_BOUND},
    {COMPARE_QMM_DGEMM_CRT, QMM_CRT_FP64_MODULI, COMPARE_DGEMM_I8_BOUND},
};

double compare_sanity_bound(const compare_record *r)
{
    if (r->dist != COMPARE_UNIFORM)
        return 0;
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        if (r->method.kind == bounds[i].kind &&
            compare_method_count(&r->method) >= bounds[i].from_count)
            return bounds[i].bound;
    return 0;
}

int compare_skipped(const compare_record *r)
{
    return r->shape.k > compare_method_deepest(&r->method) &&
           r->status == QMM_ERR_INVALID_ARG;
}

int compare_sanity_passed(const compare_record *r)
{
    if (compare_skipped(r))
        return 1;
    if (r->status != QMM_OK || isnan(r->error.relative_l2) || isnan(r->error.max_abs))
        return 0;
    const double bound = compare_sanity_bound(r);
    return bound == 0 || r->error.relative_l2 <= bound;
}
