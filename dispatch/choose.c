#include "choose.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../platform/cpu.h"
#include "../platform/log.h"
#include "registry.h"
#include "select.h"

qmm_status qmm_kernel_by_name(const char *name, const qmm_kernel **out)
{
    const qmm_kernel *k = qmm_registry_find(name);
    if (k == NULL) {
        qmm_log("kernel \"%s\" does not exist in this build", name);
        return QMM_ERR_UNKNOWN_KERNEL;
    }
    if (!k->is_supported_here()) {
        qmm_log("kernel %s (%s) is not supported on this CPU", k->name, k->isa);
        return QMM_ERR_UNSUPPORTED;
    }
    *out = k;
    return QMM_OK;
}

/* Under QMM_VERBOSE: every candidate for the shape, why each one was
 * filtered or lost, and the kernel chosen. */
static void log_choice(size_t m, size_t n, int one_shot, const qmm_kernel *chosen)
{
    if (!qmm_verbose())
        return;
    /* Detection logs the features (once) before the first explanation. */
    qmm_cpu_features();
    char nbuf[32];
    if (n == QMM_SYMBOLIC)
        snprintf(nbuf, sizeof nbuf, "symbolic");
    else
        snprintf(nbuf, sizeof nbuf, "%zu", n);
    const int transposed = chosen != NULL && qmm_select_transposes(chosen, m, n, one_shot);
    qmm_log("select for m=%zu n=%s (%s role%s):", m, nbuf, n == 1 || transposed ? "GEMV" : "matrix",
            transposed ? ", on the transpose" : "");
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        char why[160], needs[64];
        if (!k->is_supported_here())
            snprintf(why, sizeof why, "filtered: not supported here (needs %s)",
                     qmm_cpu_feature_list(k->features & ~qmm_cpu_features(), needs,
                                          sizeof needs));
        else if (k == chosen)
            snprintf(why, sizeof why, "CHOSEN");
        else
            snprintf(why, sizeof why, "lost on %s", qmm_select_why(chosen, k, m, n, one_shot));
        qmm_log("  %-34s %-14s %3ux%-3u rank %-3u %s", k->name, k->isa, k->mr, k->nr, k->rank,
                why);
    }
}

/* QMM_KERNEL, read once and copied (a later setenv may free the original);
 * empty when unset. A name too long to copy whole is longer than any kernel's,
 * and its truncated copy still matches none. */
static char forced_name[128];
static pthread_once_t forced_once = PTHREAD_ONCE_INIT;

static void read_forced_name(void)
{
    const char *v = getenv("QMM_KERNEL");
    if (v != NULL)
        snprintf(forced_name, sizeof forced_name, "%s", v);
}

static qmm_status choose(size_t m, size_t n, int one_shot, const qmm_kernel **out)
{
    pthread_once(&forced_once, read_forced_name);
    if (forced_name[0] != '\0')
        return qmm_kernel_by_name(forced_name, out);
    const qmm_kernel *k = qmm_select(qmm_registry_all(), qmm_registry_count(), m, n, one_shot);
    log_choice(m, n, one_shot, k);
    if (k == NULL) {
        /* Only a build without the portable kernels could get here. */
        qmm_log("no kernel in this build is supported on this CPU");
        return QMM_ERR_UNSUPPORTED;
    }
    *out = k;
    return QMM_OK;
}

qmm_status qmm_choose_kernel(size_t m, size_t n, const qmm_kernel **out)
{
    return choose(m, n, 0, out);
}

qmm_status qmm_choose_for_call(size_t m, size_t n, const qmm_kernel **out, int *transposed)
{
    qmm_status st = choose(m, n, 1, out);
    *transposed = st == QMM_OK && qmm_select_transposes(*out, m, n, 1);
    return st;
}
