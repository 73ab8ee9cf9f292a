/*
 * Workspaces: each thread's packing buffers, kept from one call to the next
 * (grown when a call needs more, freed when the thread exits, and the
 * exiting thread's at process exit), so that a warm call allocates nothing.
 *
 * A thread has one buffer per slot: QMM_WS_CALL for what a call keeps across
 * its tasks (the packed panels its tasks share, the partial sums of a depth
 * split), QMM_WS_OPERANDS for a quantized call's prepared operands and
 * corrections (compute/quantized.c), QMM_WS_FLOAT for the float GEMMs'
 * int8 operands, residues and sums (float_gemm/float_gemm.h). A call takes its buffers out of their
 * slots while it runs and gives them back at the end, so that another call
 * made on the same thread meanwhile (an engine's pool that runs other work
 * while it waits) cannot reuse them. QMM_WS_CALL is bounded by the sweeps
 * (compute/job.h), not by the sizes, but for the sums of a C that is not
 * int32 when k spans several k blocks (m x n int32); QMM_WS_OPERANDS holds
 * the copy of a uint8 operand. The tasks themselves allocate nothing.
 */
#ifndef QMM_WORKSPACE_H
#define QMM_WORKSPACE_H

#include <stddef.h>

enum qmm_workspace_slot { QMM_WS_CALL, QMM_WS_OPERANDS, QMM_WS_FLOAT, QMM_WS_SLOTS };

/* Every workspace is aligned to this (pack.h's QMM_PACK_MAX_ALIGN divides it). */
#define QMM_WORKSPACE_ALIGN 64

/* The calling thread's buffer of slot, at least bytes long (its full size in
 * *size), taken out of the slot: the caller owns it until
 * qmm_workspace_return. NULL when it cannot be allocated. */
void *qmm_workspace_take(enum qmm_workspace_slot slot, size_t bytes, size_t *size);

/* Gives a taken buffer of size bytes back to the calling thread's slot
 * (keeping the larger when the slot was filled meanwhile). */
void qmm_workspace_return(enum qmm_workspace_slot slot, void *data, size_t size);

#endif
