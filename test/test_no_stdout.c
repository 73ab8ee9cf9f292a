/*
 * The library must never write to its user's stdout, on any CPU. cpu_features
 * as Debian builds it prints a debug line to stdout on arm64 CPUs without
 * HWCAP2 (QEMU cortex-a53): this program catches that or anything like it.
 * It sends stdout to a temporary file, exercises detection, the registry, the
 * selector, both kernel roles and an error path with QMM_VERBOSE unset, and
 * fails if the file is not empty.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/cpu.h"
#include "support/testlib.h"

int main(void)
{
    unsetenv("QMM_VERBOSE");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *capture = tmpfile();
    if (saved < 0 || capture == NULL || dup2(fileno(capture), STDOUT_FILENO) < 0) {
        perror("redirecting stdout");
        return 1;
    }

    unsigned features = qmm_cpu_features();
    size_t kernels = qmm_kernel_count();
    for (size_t i = 0; i < kernels; i++)
        (void)qmm_kernel_at(i)->supported_here;
    int8_t a[64] = {1, 2, 3}, b[64] = {4, 5, 6};
    int32_t c[64];
    qmm_status matrix = qmm_i8_i32(8, 8, 8, a, 8, b, 8, c, 8);
    qmm_status vector = qmm_i8_i32(8, 1, 8, a, 8, b, 1, c, 1);
    qmm_status error = qmm_i8_i32(8, 8, 8, NULL, 8, b, 8, c, 8);

    fflush(stdout);
    struct stat st;
    long written = fstat(fileno(capture), &st) == 0 ? (long)st.st_size : -1;
    dup2(saved, STDOUT_FILENO);
    close(saved);

    CHECK(written == 0, "the library wrote %ld bytes to stdout", written);
    CHECK(matrix == QMM_OK && vector == QMM_OK && error == QMM_ERR_INVALID_ARG,
          "calls did not behave: %s %s %s", qmm_status_str(matrix), qmm_status_str(vector),
          qmm_status_str(error));
    printf("cpu features 0x%x, %zu kernels\n", features, kernels);
    return test_finish("test_no_stdout", 2);
}
