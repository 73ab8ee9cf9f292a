#include "sanity.h"

#include <math.h>

double compare_sanity_bound(const compare_record *r)
{
    if (r->dist != COMPARE_UNIFORM)
        return 0;
    if (r->method.kind == COMPARE_QMM_SGEMM_I8)
        return COMPARE_SGEMM_I8_BOUND;
    if (r->method.kind == COMPARE_QMM_DGEMM_I8 && r->method.slices >= QMM_FP64_SLICES)
        return COMPARE_DGEMM_I8_BOUND;
    return 0;
}

int compare_sanity_passed(const compare_record *r)
{
    if (r->status != QMM_OK || isnan(r->error.relative_l2) || isnan(r->error.max_abs))
        return 0;
    const double bound = compare_sanity_bound(r);
    return bound == 0 || r->error.relative_l2 <= bound;
}
