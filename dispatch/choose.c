#include "choose.h"

#include <stdio.h>
#include <stdlib.h>

#include "log.h"
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

static void log_choice(size_t m, size_t n, const qmm_kernel *chosen)
{
    if (!qmm_verbose())
        return;
    char nbuf[32];
    if (n == QMM_SELECT_N_SYMBOLIC)
        snprintf(nbuf, sizeof nbuf, "symbolic");
    else
        snprintf(nbuf, sizeof nbuf, "%zu", n);
    qmm_log("select for m=%zu n=%s:", m, nbuf);
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        qmm_log("  %-28s %-14s %ux%-3u rank %-3u %s", k->name, k->isa, k->mr, k->nr,
                k->rank, !k->is_supported_here() ? "filtered: not supported here"
                         : k == chosen           ? "chosen"
                                                 : "candidate");
    }
}

qmm_status qmm_choose_kernel(size_t m, size_t n, const qmm_kernel **out)
{
    const char *forced = getenv("QMM_KERNEL");
    if (forced != NULL && forced[0] != '\0')
        return qmm_kernel_by_name(forced, out);
    const qmm_kernel *k = qmm_select(qmm_registry_all(), qmm_registry_count(), m, n);
    log_choice(m, n, k);
    /* The portable kernels are always compiled and always supported. */
    *out = k;
    return QMM_OK;
}
