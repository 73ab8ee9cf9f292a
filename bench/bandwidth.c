#include "bandwidth.h"

#include <stdint.h>
#include <stdlib.h>

#include "timing.h"

/* One pass, one add per element, which the compiler vectorizes (integer
 * addition reassociates freely), over STREAMS parts of the array read side
 * by side: a reader of several rows at once (a GEMV kernel reads 8 or 16)
 * gets more from the memory system than one stream does (about 1.5x here),
 * so one stream would understate the rate a kernel can reach. */
enum { STREAMS = 8 };
static int64_t sum(const int64_t *v, size_t count)
{
    const size_t part = count / STREAMS;
    int64_t total = 0;
    for (size_t i = 0; i < part; i++)
        for (size_t s = 0; s < STREAMS; s++)
            total += v[s * part + i];
    return total;
}

double bench_read_bandwidth(void)
{
    const size_t count = (size_t)BENCH_BANDWIDTH_MIB * 1024 * 1024 / sizeof(int64_t);
    int64_t *v = malloc(count * sizeof *v);
    if (v == NULL)
        return 0;
    /* Written before it is read: untouched pages would all map the one zero
     * page, read from cache. */
    for (size_t i = 0; i < count; i++)
        v[i] = (int64_t)i;
    double best = 0;
    /* Kept, so that the sums cannot be optimized away. */
    volatile int64_t sink;
    for (int t = 0; t < BENCH_BANDWIDTH_TRIES; t++) {
        double start = bench_now();
        sink = sum(v, count);
        double seconds = bench_now() - start;
        if (t == 0 || seconds < best)
            best = seconds;
    }
    (void)sink;
    free(v);
    return (double)(count * sizeof *v) / best;
}
