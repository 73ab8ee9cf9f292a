#include "reference_test.h"

#include "compute/partition.h"

long test_checks;
const char *test_forced_kernel;

const char *test_kernel_said(void)
{
    return test_forced_kernel != NULL ? test_forced_kernel : "the selector's kernel";
}

int test_reference_start(int argc, char **argv, const char *name, void (*suite)(void),
                         void (*unsupported)(const char *kernel))
{
    qmm_partition_set_small_product(1);
    return test_each_kernel_main(argc, argv, name, &test_checks, &test_forced_kernel, suite,
                                 unsupported);
}

const char *const test_per_names[QMM_PER_ROW_COL + 1] = {"none", "matrix", "row", "col",
                                                         "row_col"};
