#include "accuracy.h"

#include <math.h>

/* The sums of squares are of non-negative terms, so double's rounding costs
 * them a relative count * 2^-53 at most: far below any error measured. */
typedef struct sums {
    double difference, reference, max_abs;
    int nan;
} sums;

static void add(sums *s, double c, double ref)
{
    double d = c - ref;
    s->difference += d * d;
    s->reference += ref * ref;
    if (fabs(d) > s->max_abs)
        s->max_abs = fabs(d);
    /* fabs(NaN) > x is false: a NaN would slip through the maximum. */
    s->nan |= isnan(d);
}

static compare_error finish(const sums *s)
{
    compare_error e;
    if (s->nan) {
        e.relative_l2 = e.max_abs = (double)NAN;
        return e;
    }
    e.max_abs = s->max_abs;
    if (s->reference > 0)
        e.relative_l2 = sqrt(s->difference / s->reference);
    else
        e.relative_l2 = s->difference > 0 ? (double)INFINITY : 0.0;
    return e;
}

compare_error compare_error_f64(const double *c, const double *ref, size_t count)
{
    sums s = {0, 0, 0, 0};
    for (size_t i = 0; i < count; i++)
        add(&s, c[i], ref[i]);
    return finish(&s);
}

compare_error compare_error_f32(const float *c, const double *ref, size_t count)
{
    sums s = {0, 0, 0, 0};
    for (size_t i = 0; i < count; i++)
        add(&s, (double)c[i], ref[i]);
    return finish(&s);
}
