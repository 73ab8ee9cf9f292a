/* How far a result is from the FP64 reference. */
#ifndef QMM_COMPARE_ACCURACY_H
#define QMM_COMPARE_ACCURACY_H

#include <stddef.h>

typedef struct compare_error {
    double relative_l2;  /* ||C - ref||_F / ||ref||_F (0 when both are 0, inf when only ref is) */
    double max_abs;      /* max |C - ref| */
} compare_error;

/* c and ref hold count elements each. A NaN in c gives NaN errors. */
compare_error compare_error_f64(const double *c, const double *ref, size_t count);
compare_error compare_error_f32(const float *c, const double *ref, size_t count);

#endif
