/*
 * Every argument rule of include/qmm/qmm.h, each with its expected status,
 * and C left untouched whenever a call fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "support/testlib.h"

enum { SENTINEL = 0x5EED };
static long checks;

static void fill(int32_t *c, size_t len)
{
    for (size_t x = 0; x < len; x++)
        c[x] = SENTINEL;
}

static void expect(qmm_status want, qmm_status got, const int32_t *c, size_t len,
                   const char *call)
{
    checks++;
    CHECK(got == want, "%s: got %s, want %s", call, qmm_status_str(got), qmm_status_str(want));
    if (want != QMM_OK)
        for (size_t x = 0; x < len; x++)
            CHECK(c[x] == SENTINEL, "%s: wrote C on failure", call);
}

/* Expect status want from a call; when it is an error, the len elements of C
 * that were filled before it must be untouched. */
#define EXPECT(want, c, len, call)            \
    do {                                      \
        fill(c, len);                         \
        expect(want, (call), c, len, #call);  \
    } while (0)

static int8_t a[64], b[64];
static int32_t c[64];

static void null_pointers(void)
{
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, NULL, 4, b, 4, c, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, a, 4, NULL, 4, c, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 0, qmm_i8_i32(4, 4, 4, a, 4, b, 4, NULL, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(4, 4, 4, NULL, 4, 1, b, 4, 1, c, 4, 1));
    /* Empty operands may be NULL. */
    EXPECT(QMM_OK, c, 0, qmm_i8_i32(0, 4, 4, NULL, 4, b, 4, NULL, 4));
    EXPECT(QMM_OK, c, 0, qmm_i8_i32(4, 0, 4, a, 4, NULL, 0, NULL, 0));
    EXPECT(QMM_OK, c, 0, qmm_i8_i32_strided(0, 0, 0, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0));
}

static void empty_sizes(void)
{
    /* m == 0 or n == 0 touches nothing. */
    for (size_t x = 0; x < 16; x++)
        c[x] = SENTINEL;
    checks++;
    CHECK(qmm_i8_i32(0, 4, 4, a, 4, b, 4, c, 4) == QMM_OK, "m == 0 must succeed");
    CHECK(qmm_i8_i32(4, 0, 4, a, 4, b, 4, c, 4) == QMM_OK, "n == 0 must succeed");
    for (size_t x = 0; x < 16; x++)
        CHECK(c[x] == SENTINEL, "m or n == 0 wrote C");
    /* k == 0 writes zeros, with A and B NULL. */
    checks++;
    CHECK(qmm_i8_i32(3, 4, 0, NULL, 0, NULL, 4, c, 5) == QMM_OK, "k == 0 must succeed");
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 5; j++)
            CHECK(c[i * 5 + j] == (j < 4 ? 0 : SENTINEL), "k == 0: C(%zu,%zu) = %ld", i, j,
                  (long)c[i * 5 + j]);
}

static void leading_dimensions(void)
{
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, a, 3, b, 4, c, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, a, 4, b, 3, c, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, a, 4, b, 4, c, 3));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(4, 4, 4, a, SIZE_MAX, b, 4, c, 4));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32(4, 4, 4, a, (size_t)PTRDIFF_MAX + 1, b, 4, c, 4));
    /* Checked whatever the sizes. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32(0, 4, 4, NULL, 3, b, 4, NULL, 4));
    EXPECT(QMM_OK, c, 16, qmm_i8_i32(4, 4, 4, a, 9, b, 5, c, 4));
}

static void c_strides(void)
{
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c, 0, 1));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c, 4, 0));
    /* Two elements of C at one address. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c, 1, 1));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c, 3, 1));
    /* A single row or column never collides, whatever the other stride. */
    EXPECT(QMM_OK, c, 16, qmm_i8_i32_strided(1, 4, 4, a, 4, 1, b, 4, 1, c, 1, 1));
    EXPECT(QMM_OK, c, 16, qmm_i8_i32_strided(4, 1, 4, a, 4, 1, b, 1, 1, c, 1, 1));
    /* Column-major and reversed C are fine. */
    EXPECT(QMM_OK, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c, 1, 4));
    EXPECT(QMM_OK, c, 16, qmm_i8_i32_strided(4, 4, 4, a, 4, 1, b, 4, 1, c + 15, -4, -1));
}

static void overflow(void)
{
    /* Sizes beyond PTRDIFF_MAX. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(SIZE_MAX, 1, 1, a, 1, 1, b, 1, 1, c, 1, 1));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(1, 1, (size_t)PTRDIFF_MAX + 1, a, 1, 0, b, 0, 1, c, 1, 1));
    /* Extents whose byte size overflows. */
    size_t big = (size_t)1 << 40;
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(big, 1, big, a, (ptrdiff_t)big, 1, b, 1, 1, c, 1, 1));
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(2, 2, 2, a, PTRDIFF_MAX, PTRDIFF_MAX, b, 2, 1, c, 2, 1));
    /* Each side of A's span within PTRDIFF_MAX, the whole span past it. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(2, 2, 3, a, PTRDIFF_MAX, -2, b, 2, 1, c, 2, 1));
    /* A C whose int32 extent passes PTRDIFF_MAX bytes. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(2, 1, 1, a, 0, 0, b, 0, 0, c, PTRDIFF_MAX / 2, 1));
    /* A negative stride that reaches below address zero. */
    EXPECT(QMM_ERR_INVALID_ARG, c, 16,
           qmm_i8_i32_strided(2, 2, 2, a, -PTRDIFF_MAX, 1, b, 2, 1, c, 2, 1));
}

/* A very deep product of broadcast operands (stride 0: a tiny span) is a
 * valid call: it must give the exact sum with a workspace bounded by the
 * depth blocking, not by k (whole-depth panels took about 44 bytes per depth:
 * some 700 MB here). */
static void deep_broadcast(void)
{
    const size_t k = ((size_t)1 << 24) + 3;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    int8_t x = 3, y = -5;
    int32_t out[2] = {0, 0};
    checks++;
    CHECK(qmm_i8_i32_strided(1, 2, k, &x, 0, 0, &y, 0, 0, out, 2, 1) == QMM_OK,
          "1 x 2 x %zu broadcast product failed", k);
    getrusage(RUSAGE_SELF, &after);
    const int32_t want = (int32_t)(uint32_t)(-15 * (int64_t)k);
    CHECK(out[0] == want && out[1] == want, "1 x 2 x %zu: got %d %d, want %d", k, out[0],
          out[1], want);
    /* ru_maxrss is in KiB. */
    long grown = after.ru_maxrss - before.ru_maxrss;
    CHECK(grown < 64 * 1024, "1 x 2 x %zu: peak memory grew by %ld KiB", k, grown);
}

static void aliasing(void)
{
    static int32_t buf[64];
    int8_t *bytes = (int8_t *)buf;
    /* C over A, C over B, C sharing one byte with A's last element. */
    EXPECT(QMM_ERR_INVALID_ARG, buf, 0,
           qmm_i8_i32(2, 2, 2, bytes, 2, b, 2, buf, 2));
    EXPECT(QMM_ERR_INVALID_ARG, buf, 0,
           qmm_i8_i32(2, 2, 2, a, 2, bytes + 12, 2, buf + 2, 2));
    EXPECT(QMM_ERR_INVALID_ARG, buf, 0,
           qmm_i8_i32(1, 2, 5, bytes, 5, b, 2, buf + 1, 2));
    /* C right after A's last element is fine; so are A and B overlapping. */
    EXPECT(QMM_OK, buf, 0, qmm_i8_i32(2, 2, 2, bytes, 2, b, 2, buf + 1, 2));
    EXPECT(QMM_OK, c, 16, qmm_i8_i32(4, 4, 4, a, 4, a, 4, c, 4));
}

static void broadcast_inputs(void)
{
    /* Zero strides on A and B are valid: every element is a[0] and b[0]. */
    int8_t x = -128, y = -128;
    checks++;
    CHECK(qmm_i8_i32_strided(3, 5, 7, &x, 0, 0, &y, 0, 0, c, 5, 1) == QMM_OK,
          "broadcast inputs rejected");
    for (size_t i = 0; i < 15; i++)
        CHECK(c[i] == 7 * 16384, "broadcast result %zu = %ld", i, (long)c[i]);
}

static void status_strings(void)
{
    const char *seen[5] = {0};
    for (int s = QMM_OK; s <= QMM_ERR_UNKNOWN_KERNEL; s++) {
        seen[s] = qmm_status_str((qmm_status)s);
        CHECK(seen[s] != NULL && seen[s][0] != '\0', "status %d has no text", s);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(seen[s], seen[t]) != 0, "statuses %d and %d read alike", s, t);
    }
    CHECK(strcmp(qmm_status_str((qmm_status)99), "unknown status") == 0,
          "out-of-range status text");
    CHECK(qmm_kernel_at(qmm_kernel_count()) == NULL, "kernel index past the end");
    checks++;
}

int main(void)
{
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = b[i] = (int8_t)(i * 37);
    null_pointers();
    empty_sizes();
    leading_dimensions();
    c_strides();
    overflow();
    deep_broadcast();
    aliasing();
    broadcast_inputs();
    status_strings();
    return test_finish("test_bad_input", checks);
}
