/*
 * The real registry: descriptors that the driver and the selector can rely
 * on, the public view agreeing with them, and the selector's choice on this
 * CPU always a supported kernel of the right role.
 */
#include <string.h>

#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "support/testlib.h"

static long checks;

static void descriptors(void)
{
    size_t count = qmm_registry_count();
    CHECK(count == qmm_kernel_count(), "registry and public count differ");
    for (size_t i = 0; i < count; i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        const qmm_kernel_info *info = qmm_kernel_at(i);
        CHECK(k->mr >= 1 && k->nr >= 1 && k->mr * k->nr <= QMM_MAX_TILE,
              "%s: tile %ux%u", k->name, k->mr, k->nr);
        CHECK(k->a_format->kr % k->b_format->kr == 0,
              "%s: depth padded for A (kr %u) is not a multiple of B's kr (%u)", k->name,
              k->a_format->kr, k->b_format->kr);
        CHECK(k->run != NULL && k->is_supported_here != NULL, "%s: incomplete", k->name);
        CHECK(k->run_rows == NULL || k->mr > 1,
              "%s: partial rows on a one-row tile (mr %u) cannot be called", k->name, k->mr);
        /* The driver calls end() for every begin(): one without the other
         * would leave state behind (AMX's 8 KB of tiles) or undo nothing. */
        CHECK((k->begin == NULL) == (k->end == NULL), "%s: one job hook without the other",
              k->name);
        CHECK(strncmp(k->name, "generic_", 8) != 0 || strcmp(k->isa, "generic") == 0,
              "%s: portable kernel with isa %s", k->name, k->isa);
        CHECK(info != NULL && strcmp(info->name, k->name) == 0 && info->mr == k->mr &&
                  info->nr == k->nr && strcmp(info->isa, k->isa) == 0 &&
                  info->supported_here == (k->is_supported_here() != 0),
              "%s: public info disagrees", k->name);
        CHECK(qmm_registry_find(k->name) == k, "%s: not found by name", k->name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(k->name, qmm_registry_at(j)->name) != 0, "%s listed twice", k->name);
        if (strcmp(k->isa, "generic") == 0)
            CHECK(k->is_supported_here(), "%s: portable kernel unsupported", k->name);
        checks++;
    }
#if defined(__x86_64__)
    /* The kernel list says ROWS for the AVX2 matrix kernel: the driver skips
     * its padding rows. */
    const qmm_kernel *avx2 = qmm_registry_find("x86_64_mmm_i8i32_6x16_avx2");
    CHECK(avx2 != NULL && avx2->run_rows != NULL, "x86_64_mmm_i8i32_6x16_avx2: no run_rows");
#endif
    CHECK(qmm_registry_at(count) == NULL && qmm_kernel_at(count) == NULL,
          "index past the end is not NULL");
    CHECK(qmm_registry_find("no_such_kernel") == NULL, "found a kernel that does not exist");
    checks++;
}

static void selection_here(void)
{
    static const size_t ns[] = {1, 2, 7, 8, 128, QMM_SYMBOLIC};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        const qmm_kernel *k;
        CHECK(qmm_choose_kernel(256, ns[i], &k) == QMM_OK, "no kernel for n=%zu", ns[i]);
        CHECK(k->is_supported_here(), "n=%zu: chose unsupported %s", ns[i], k->name);
        CHECK((k->nr == 1) == (ns[i] == 1), "n=%zu: chose %s (nr=%u) for the wrong role",
              ns[i], k->name, k->nr);
        if (ns[i] == QMM_SYMBOLIC)
            printf("m=256 n=symbolic -> %s\n", k->name);
        else
            printf("m=256 n=%zu -> %s\n", ns[i], k->name);
        checks++;
    }
}

/* A one-shot single-row product runs on the matrix kernel chosen for it when
 * that has partial rows, else transposed, on a GEMV kernel. */
static void single_row(void)
{
    const qmm_kernel *k, *matrix;
    CHECK(qmm_choose_kernel(1, 384, &matrix) == QMM_OK && matrix->nr > 1,
          "no matrix kernel for 1 x 384");
    const int expect_transposed = matrix->run_rows == NULL;
    int transposed = -1;
    CHECK(qmm_choose_for_call(1, 384, &k, &transposed) == QMM_OK &&
              transposed == expect_transposed &&
              (transposed ? k->nr == 1 : k == matrix),
          "1 x 384 product runs %s%s, %s", k->name, transposed ? " transposed" : "",
          expect_transposed ? "expected a GEMV kernel on the transpose" : "expected the matrix kernel");
    printf("1 x 384 -> %s%s\n", k->name, transposed ? " (transposed)" : "");
    CHECK(qmm_choose_for_call(1, 1, &k, &transposed) == QMM_OK && !transposed &&
              qmm_choose_for_call(2, 384, &k, &transposed) == QMM_OK && !transposed,
          "only a single-row product with n > 1 runs transposed");
    CHECK(qmm_choose_for_call(384, 384, &k, &transposed) == QMM_OK && k->nr > 1 && !transposed,
          "384 x 384 product does not run on a matrix kernel");
    checks++;
}

int main(void)
{
    descriptors();
    selection_here();
    single_row();
    return test_finish("test_registry", checks);
}
