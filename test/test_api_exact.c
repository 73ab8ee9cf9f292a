/*
 * The exactness suite through the public API: once per compiled kernel
 * forced with QMM_KERNEL, each in a child process because the library reads
 * its environment once (test_each_kernel), then with the kernels the selector
 * picks. A kernel that is not supported here must be refused with
 * QMM_ERR_UNSUPPORTED.
 */
#include <stdlib.h>

#include "support/exact_suite.h"
#include "support/testlib.h"

static long checks;
static const char *forced = "selected";

static void suite(void)
{
    checks += exact_suite_run(forced, qmm_i8_i32_strided, qmm_i8_i32);
}

static void unsupported(const char *kernel)
{
    int8_t a = 1, b = 1;
    int32_t c = 7;
    qmm_status st = qmm_i8_i32(1, 1, 1, &a, 1, &b, 1, &c, 1);
    CHECK(st == QMM_ERR_UNSUPPORTED, "QMM_KERNEL=%s (unsupported here) gave %s", kernel,
          qmm_status_str(st));
    CHECK(c == 7, "QMM_KERNEL=%s (unsupported here) wrote C", kernel);
    checks++;
}

int main(void)
{
    unsetenv("QMM_KERNEL");
    test_each_kernel(&checks, &forced, suite, unsupported);
    forced = "selected";
    suite();
    return test_finish("test_api_exact", checks);
}
