/*
 * What a kernel is: a descriptor plus a microkernel.
 *
 * Microkernel contract (BLIS style): given the padded depth kp, one packed A
 * panel (mr rows, in a_format) and one packed B panel (nr columns, in
 * b_format), compute the full mr x nr int32 tile and store it, overwriting,
 * at c[i*rsc + j*csc]. kp is k padded to a multiple of the A format's kr,
 * which the B format's kr divides; kp may be 0 (the tile is then zeros).
 * Packed panels are zero-padded, so the kernel never handles partial tiles:
 * the driver hands it a scratch tile at the edges of C.
 * A panels of a K-inner int8 format without padding may be the caller's own
 * rows, read in place at any alignment (qmm_a_in_place, compute/loops.h):
 * such a kernel must not assume its A panel aligned.
 *
 * Optional partial rows (run_rows, a qmm_ukernel_rows_fn): the same panels and
 * strides as run (the A panel still laid out for mr rows, zero-padded), but it
 * computes and stores only rows [0, rows) of the tile, all nr columns, for
 * 1 <= rows < mr; it never writes rows >= rows. The driver then runs the last
 * A panel of an m that is not a multiple of mr without computing padding rows.
 *
 * Optional job hooks (begin, end, a qmm_kernel_hook_fn each), for kernels whose
 * instructions need per-thread state that outlives a tile, such as AMX's tile
 * configuration: the driver calls begin() on a thread before the first tile
 * it runs there for a task, and end() after the last, on the same thread, so
 * that the state is set up once per block of tiles and handed back at the end
 * (AMX: ldtilecfg, then tilerelease, so that the caller's thread keeps no 8 KB
 * of tile data). Between them the thread runs only this kernel's run and
 * run_rows, and code that does not touch that state (packing, output stages).
 * Such state is call-clobbered in the x86-64 psABI, so a caller loses nothing
 * it could have kept. A kernel without hooks has them NULL.
 *
 * Optional overlap (run_overlap, a qmm_ukernel_overlap_fn): run's contract,
 * plus one call of meanwhile->run once the tile's multiply-adds are issued
 * and before its sums are stored, so that other work (the output stage of
 * the tile before) executes while they are in flight: on AMX the tile unit
 * computes while the vector units finish the previous tile. It neither reads
 * nor writes c before that call.
 *
 * Optional uint8 A (u8_a, a twin descriptor): the same kernel, tile, formats,
 * features and hooks, with microkernels (qmm_<name>_u8a_run, and _u8a_run_rows
 * and _u8a_run_overlap where it has those) that read A's bytes as uint8
 * (AMX tdpbusd, VNNI vpdpbusd without the flip) and compute the same exact
 * sums modulo 2^32 of uint8 A times int8 B. A uint8 A then reaches the kernel
 * as it is, read in place or packed by the int8 format's packer (bytes are
 * bytes; padding is zero in either type), where a kernel without a twin
 * needs A flipped to int8 first (compute/quantized.h). A twin is not in the
 * registry: the selector picks the int8 kernel, and a product whose A is
 * uint8 runs its twin.
 *
 * Adding a kernel: one source file under kernels/<isa>/ that defines its
 * microkernel qmm_<name>_run (and qmm_<name>_run_rows if it has partial rows,
 * qmm_<name>_begin and qmm_<name>_end if it has job hooks,
 * qmm_<name>_run_overlap if it overlaps other work, the qmm_<name>_u8a_*
 * microkernels if it reads uint8 A), and its descriptor: one entry in
 * dispatch/kernel_list.h, which says which of those it defines and names
 * its fields.
 */
#ifndef QMM_KERNEL_H
#define QMM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "../pack/pack.h"
#include "qmm/qmm.h"

typedef void qmm_ukernel_fn(size_t kp, const void *a, const void *b,
                            int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

typedef void qmm_ukernel_rows_fn(unsigned rows, size_t kp, const void *a, const void *b,
                                 int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

typedef void qmm_kernel_hook_fn(void);

/* Work a kernel runs while its tile's multiply-adds are in flight (the
 * output stage of the tile before, compute/tile.c): run(context). It uses
 * no state of the kernel's (AMX: no tile register). */
typedef struct qmm_meanwhile {
    void (*run)(void *context);
    void *context;
} qmm_meanwhile;

typedef void qmm_ukernel_overlap_fn(size_t kp, const void *a, const void *b, int32_t *c,
                                    ptrdiff_t rsc, ptrdiff_t csc, const qmm_meanwhile *meanwhile);

/* The largest tile any kernel may declare (mr * nr), so that the driver's edge
 * scratch tile lives on the stack. */
#define QMM_MAX_TILE 1024

typedef struct qmm_kernel {
    const char *name;        /* unique; what QMM_KERNEL and the bench accept */
    const char *isa;         /* "generic", "neon", "neon+dotprod", "avx2", ... */
    unsigned mr, nr;         /* tile: mr rows of A by nr columns of B */
    unsigned rank;           /* expected speed among kernels of the same role; higher is faster */
    const qmm_pack_format *a_format;
    const qmm_pack_format *b_format;
    unsigned features;       /* CPU features it needs (platform/cpu.h) */
    int (*is_supported_here)(void);
    qmm_ukernel_fn *run;
    qmm_ukernel_rows_fn *run_rows; /* partial rows, 1 <= rows < mr; NULL when it has none */
    qmm_kernel_hook_fn *begin;     /* job hooks (above); both NULL when it has none */
    qmm_kernel_hook_fn *end;
    qmm_ukernel_overlap_fn *run_overlap; /* run with other work meanwhile; NULL when it has none */
    qmm_type a_type;         /* what its microkernels read A's bytes as: QMM_TYPE_I8, or U8 (a twin) */
    const struct qmm_kernel *u8_a; /* its twin reading uint8 A (above), or NULL */
    unsigned depth_l1s;      /* L1 data caches of depths a packed B panel may span (0: 1) */
    unsigned vector;         /* 0, or the feature whose vector length scales the tile
                                (QMM_CPU_SVE or QMM_CPU_SME, platform/cpu.h; below) */
    unsigned scales;         /* with vector: QMM_SCALES_M and/or QMM_SCALES_N */
} qmm_kernel;

/*
 * Vector-length-agnostic kernels (SVE, SME) have a tile that depends on the
 * vector length, which only the CPU knows. Their descriptor entry gives the
 * tile and rank at 128-bit vectors, and which dimensions grow with which
 * vector (.vector, .scales); the registry multiplies those by VL/128 once
 * per process, before anyone reads them (the rank by the growth of the
 * tile's area: MACs per instruction grow with it), so that everything above
 * the registry sees a fixed tile like any other kernel's. The microkernel
 * reads the same vector length (cntb, rdsvl) and computes that tile. A tile
 * past QMM_MAX_TILE at this CPU's vector length is not supported here.
 */
enum { QMM_SCALES_M = 1u << 0, QMM_SCALES_N = 1u << 1 };

/* For a kernel whose stores need contiguous columns: rows [0, rows) of the
 * tile it computed into a local row-major array t (nr int32 per row), put
 * into C at any strides. */
static inline void qmm_kernel_scatter_rows(unsigned rows, unsigned nr, const int32_t *t,
                                           int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    for (unsigned i = 0; i < rows; i++)
        for (unsigned j = 0; j < nr; j++)
            c[(ptrdiff_t)i * rsc + (ptrdiff_t)j * csc] = t[i * nr + j];
}

/* The job hooks around a thread's tiles; nothing for a kernel without them. */
static inline void qmm_kernel_begin(const qmm_kernel *k)
{
    if (k->begin != NULL)
        k->begin();
}

static inline void qmm_kernel_end(const qmm_kernel *k)
{
    if (k->end != NULL)
        k->end();
}

#endif
