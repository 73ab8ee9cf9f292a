/*
 * A read in place by the driver (qmm_a_in_place, compute/loops.h): which
 * sources qualify, and that every kernel supported here computes the exact
 * product from sources that do and sources that nearly do. A ends right
 * before a page that faults on access, so that reading rows past A (a partial
 * panel taken in place) crashes the test, and A starts at every kind of
 * alignment; a row stride other than kp read as kp gives wrong rows.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compute/loops.h"
#include "compute/gemm.h"
#include "compute/plan.h"
#include "dispatch/registry.h"
#include "support/testlib.h"

static long checks;

/* The sources qmm_a_in_place accepts for kern, and the near misses it must not. */
static int predicate(const qmm_kernel *kern)
{
    const qmm_pack_format *f = kern->a_format;
    const size_t kr = f->kr, k = 2 * kr;
    const int layout_ok = f->k_inner && f->elem_bytes == 1 &&
                          qmm_pack_panel_bytes(f, kern->mr, k) == kern->mr * k;
    const ptrdiff_t kp = (ptrdiff_t)k;
    CHECK(qmm_a_in_place(kern, k, k, kp, 1) == layout_ok, "%s: row-major A, k = lda = %zu",
          kern->name, k);
    CHECK(!qmm_a_in_place(kern, k, k, kp + (ptrdiff_t)kr, 1), "%s: lda > k", kern->name);
    CHECK(!qmm_a_in_place(kern, k, k, -kp, 1), "%s: rows reversed", kern->name);
    CHECK(!qmm_a_in_place(kern, k, k, 1, kp), "%s: column-major A", kern->name);
    CHECK(!qmm_a_in_place(kern, k, k, kp, 2), "%s: depths spaced", kern->name);
    if (kr > 1)
        CHECK(!qmm_a_in_place(kern, k - 1, k, kp, 1), "%s: k < kp, lda == kp", kern->name);
    checks += 6;
    return layout_ok;
}

/* C = A.B with kern forced, against the reference, from A at a[i*lda + p]
 * whose last element is `slack` bytes before a page without access (so that
 * A starts at any alignment). fill: every element of A and B, 0 for random. */
static void product(const qmm_kernel *kern, size_t m, size_t n, size_t k, size_t lda,
                    size_t slack, int8_t fill)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t extent = (m - 1) * lda + k;
    const size_t room = (extent + slack + page - 1) / page * page;
    unsigned char *map = mmap(NULL, room + page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + room, page, PROT_NONE) != 0)
        abort();
    for (size_t x = 0; x < room; x++)  /* A, and what surrounds it, random */
        map[x] = (unsigned char)test_rand_i8();
    int8_t *a = (int8_t *)(map + room - slack - extent);
    int8_t *b = malloc(k * n);
    int32_t *c = malloc(m * n * sizeof *c);
    if (b == NULL || c == NULL)
        abort();
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++)
            a[i * lda + p] = fill != 0 ? fill : test_rand_i8();
    for (size_t x = 0; x < k * n; x++)
        b[x] = fill != 0 ? fill : test_rand_i8();
    qmm_status st = qmm_product(kern, m, n, k, a, (ptrdiff_t)lda, 1, b, (ptrdiff_t)n, 1, c,
                                (ptrdiff_t)n, 1);
    size_t bad = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            uint32_t want = 0;
            for (size_t p = 0; p < k; p++)
                want += (uint32_t)(a[i * lda + p] * b[p * n + j]);
            bad += c[i * n + j] != (int32_t)want;
        }
    CHECK(st == QMM_OK && bad == 0,
          "%s m=%zu n=%zu k=%zu lda=%zu, A ends %zu bytes before the guard page: %s, %zu wrong",
          kern->name, m, n, k, lda, slack, qmm_status_str(st), bad);
    checks++;
    free(b);
    free(c);
    munmap(map, room + page);
}

int main(void)
{
    static const size_t slacks[] = {0, 1, 16, 63};
    size_t in_place = 0;
    test_seed(11);
    for (size_t x = 0; x < qmm_registry_count(); x++) {
        const qmm_kernel *kern = qmm_registry_at(x);
        in_place += predicate(kern);
        if (!kern->is_supported_here())
            continue;
        const size_t mr = kern->mr;
        const size_t ms[] = {1, mr > 1 ? mr - 1 : 2, mr, mr + 1, 3 * mr + 1, 5 * mr + 3};
        /* Multiples of every kr (in place where the format allows), then of
         * 16 only, then of nothing. */
        static const size_t ks[] = {64, 192, 80, 67};
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                for (size_t si = 0; si < sizeof slacks / sizeof slacks[0]; si++) {
                    const size_t m = ms[mi], k = ks[ki];
                    /* Rows of k, of more (garbage past k), and of exactly
                     * the kp of a format of kr 16 or 64 when k is not one. */
                    const size_t ldas[] = {k, k + 16, (k + 15) / 16 * 16, (k + 63) / 64 * 64};
                    for (size_t li = 0; li < sizeof ldas / sizeof ldas[0]; li++)
                        product(kern, m, 1, k, ldas[li], slacks[si], 0);
                    product(kern, m, 2, k, k, slacks[si], 0);
                }
        product(kern, 3 * mr + 1, 1, 192, 192, 0, -128);
    }
    CHECK(in_place > 0, "no kernel reads A in place: the test tests nothing");
    return test_finish("test_in_place", checks);
}
