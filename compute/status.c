#include "qmm/qmm.h"

static const char *const messages[] = {
    [QMM_OK] = "success",
    [QMM_ERR_INVALID_ARG] = "invalid argument",
    [QMM_ERR_NO_MEMORY] = "out of memory",
    [QMM_ERR_UNSUPPORTED] = "kernel not supported on this CPU",
    [QMM_ERR_UNKNOWN_KERNEL] = "unknown kernel name",
};

const char *qmm_status_str(qmm_status s)
{
    if ((unsigned)s >= sizeof messages / sizeof messages[0])
        return "unknown status";
    return messages[s];
}
