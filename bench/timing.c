/* clock_gettime is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "timing.h"

#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double bench_median(double *v, size_t count)
{
    qsort(v, count, sizeof *v, compare_doubles);
    size_t mid = count / 2;
    return count % 2 != 0 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
