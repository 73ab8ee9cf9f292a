/*
 * libfakeclock: a guest-side LD_PRELOAD library that makes a program's clock
 * deterministic, so that its executed instruction count is too.
 *
 * qmm-bench prints the times it measures; printf of a double takes a number of
 * instructions that depends on its digits, so two identical runs would differ
 * by a few dozen instructions. With this library every clock_gettime() call
 * returns the previous time plus exactly one microsecond, whatever the clock:
 * each timed call then measures the same duration, and the output, the median
 * and the instruction count are the same on every run and for every --reps.
 *
 * Built with the target compiler (it runs inside the guest):
 *   qemu-aarch64 -E LD_PRELOAD=/abs/path/libfakeclock.so prog
 */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

static unsigned long long fake_ns = 1000000000ull;

int clock_gettime(clockid_t clock, struct timespec *t)
{
    (void)clock;
    fake_ns += 1000;
    t->tv_sec = (time_t)(fake_ns / 1000000000ull);
    t->tv_nsec = (long)(fake_ns % 1000000000ull);
    return 0;
}
