/* Memory for qmm-bench-peers, which has no use for a run that lacks some. */
#ifndef QMM_PEERS_XMALLOC_H
#define QMM_PEERS_XMALLOC_H

#include <stddef.h>

/* malloc(bytes), at least one byte; out of memory ends the process with a
 * message and exit status 1. */
void *xmalloc(size_t bytes);

#endif
