#include "kernel_lookup.h"

#include <string.h>

#include "dispatch/choose.h"
#include "qmm/qmm.h"

int bench_kernel_name_width(void)
{
    size_t width = strlen("kernel");
    for (size_t i = 0; i < qmm_kernel_count(); i++) {
        size_t len = strlen(qmm_kernel_at(i)->name);
        if (len > width)
            width = len;
    }
    return (int)width;
}

void bench_print_kernels(FILE *out, int csv)
{
    int width = bench_kernel_name_width();
    if (csv)
        fprintf(out, "name,isa,mr,nr,supported_here\n");
    else
        fprintf(out, "%-*s  %-14s %4s %4s  %s\n", width, "kernel", "isa", "mr", "nr",
                "supported here");
    for (size_t i = 0; i < qmm_kernel_count(); i++) {
        const qmm_kernel_info *k = qmm_kernel_at(i);
        const char *yes_no = k->supported_here ? "yes" : "no";
        if (csv)
            fprintf(out, "%s,%s,%u,%u,%s\n", k->name, k->isa, k->mr, k->nr, yes_no);
        else
            fprintf(out, "%-*s  %-14s %4u %4u  %s\n", width, k->name, k->isa, k->mr, k->nr,
                    yes_no);
    }
}

const qmm_kernel *bench_lookup_kernel(const char *option, const char *name)
{
    const qmm_kernel *k = NULL;
    qmm_status st = qmm_kernel_by_name(name, &k);
    if (st == QMM_OK)
        return k;
    fprintf(stderr, "qmm-bench: %s %s: %s\n", option, name, qmm_status_str(st));
    fprintf(stderr, "kernels in this build:\n");
    bench_print_kernels(stderr, 0);
    return NULL;
}
