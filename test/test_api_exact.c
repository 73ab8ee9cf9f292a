/*
 * The exactness suite through the public API: once with the kernel the
 * selector picks, and once per compiled kernel forced with QMM_KERNEL, each in
 * a child process because the library reads its environment once. A kernel
 * that is not supported here must be refused with QMM_ERR_UNSUPPORTED.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/registry.h"
#include "support/exact_suite.h"
#include "support/testlib.h"

static int forced_kernel_child(const qmm_kernel *kern)
{
    setenv("QMM_KERNEL", kern->name, 1);
    if (!kern->is_supported_here()) {
        int8_t a = 1, b = 1;
        int32_t c = 7;
        qmm_status st = qmm_i8_i32(1, 1, 1, &a, 1, &b, 1, &c, 1);
        CHECK(st == QMM_ERR_UNSUPPORTED, "QMM_KERNEL=%s (unsupported here) gave %s",
              kern->name, qmm_status_str(st));
        CHECK(c == 7, "QMM_KERNEL=%s (unsupported here) wrote C", kern->name);
        return test_finish(kern->name, 1);
    }
    long checks = exact_suite_run(kern->name, qmm_i8_i32_strided, qmm_i8_i32);
    return test_finish(kern->name, checks);
}

int main(void)
{
    long checks = 0;
    unsetenv("QMM_KERNEL");
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0)
            _exit(forced_kernel_child(kern));
        int status;
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                  WEXITSTATUS(status) == 0,
              "QMM_KERNEL=%s: child failed (status %d)", kern->name, status);
        checks++;
    }
    checks += exact_suite_run("selected", qmm_i8_i32_strided, qmm_i8_i32);
    return test_finish("test_api_exact", checks);
}
