/*
 * Workspaces: each thread's packing buffers, kept from one call to the next
 * (grown when a call needs more, freed when the thread exits, and the
 * exiting thread's at process exit), so that a warm call allocates nothing.
 *
 * A thread has one buffer per slot: QMM_WS_TASK for the packed panels of the
 * task it runs (tasks never nest, so one suffices), QMM_WS_CALL for what a
 * call keeps across its tasks (the partial sums of a depth split), owned by
 * the calling thread while its tasks run, possibly on that same thread.
 */
#ifndef QMM_WORKSPACE_H
#define QMM_WORKSPACE_H

#include <stddef.h>

enum qmm_workspace_slot { QMM_WS_TASK, QMM_WS_CALL, QMM_WS_SLOTS };

/* Every workspace is aligned to this (pack.h's QMM_PACK_MAX_ALIGN divides it). */
#define QMM_WORKSPACE_ALIGN 64

/* The calling thread's buffer of slot, at least bytes long (its contents
 * undefined), or NULL when it cannot be allocated (the thread then has none).
 * Valid until the thread's next call for the same slot. */
void *qmm_workspace(enum qmm_workspace_slot slot, size_t bytes);

#endif
