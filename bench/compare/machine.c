#include "machine.h"

#include <stdio.h>
#include <string.h>

#include "qmm/qmm.h"

void compare_cpu_model(char *text, size_t size)
{
    snprintf(text, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        snprintf(text, size, "%.*s", (int)strcspn(colon, "\n"), colon);
        break;
    }
    fclose(f);
}

void compare_qmm_kernel(bench_shape s, char *text, size_t size)
{
    qmm_plan *plan;
    const char *name = NULL;
    if (qmm_plan_create(&plan, s.m, s.n, s.k) == QMM_OK) {
        name = qmm_plan_kernel_name(plan, s.n);
        snprintf(text, size, "%s", name != NULL ? name : "?");
        qmm_plan_destroy(plan);
    }
    if (name == NULL)
        snprintf(text, size, "?");
}
