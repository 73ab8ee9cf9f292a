#include "registry.h"

#include <pthread.h>
#include <string.h>

#include "../platform/cpu.h"
#include "qmm/qmm.h"

/* A scaled tile too large for the driver's scratch tile (QMM_MAX_TILE, on
 * the stack) leaves its kernel unsupported at this vector length. */
static int tile_fits(const qmm_kernel *k)
{
    return k->mr * k->nr <= QMM_MAX_TILE;
}

/* Each entry of the list becomes the kernel's code declarations, its
 * is_supported_here(), its descriptor and its uint8-A twin's: the entry's
 * named fields, and those set here. Its four words pick by token pasting
 * whether each optional microkernel is declared and set, or NULL: RUN_ROWS
 * or NO_RUN_ROWS for run_rows, HOOKS or NO_HOOKS for begin and end,
 * RUN_OVERLAP or NO_RUN_OVERLAP for run_overlap, U8A or NO_U8A for the twin
 * (kernels/kernel.h), whose microkernels are the same names with _u8a_ after
 * the kernel's. The macros of a word are under its place's prefix alone, so
 * a word in another's place names none and does not compile. The
 * descriptors whose tile scales with a vector length (.vector, .scales) are
 * scaled once, by scale_tiles below, before any is read. */
#define QMM_ROWS_DECL_RUN_ROWS(fn_) qmm_ukernel_rows_fn fn_##_run_rows;
#define QMM_ROWS_DECL_NO_RUN_ROWS(fn_)
#define QMM_ROWS_FN_RUN_ROWS(fn_) fn_##_run_rows
#define QMM_ROWS_FN_NO_RUN_ROWS(fn_) NULL
#define QMM_HOOKS_DECL_HOOKS(name_) qmm_kernel_hook_fn qmm_##name_##_begin, qmm_##name_##_end;
#define QMM_HOOKS_DECL_NO_HOOKS(name_)
#define QMM_HOOKS_FN_HOOKS(name_, which_) qmm_##name_##_##which_
#define QMM_HOOKS_FN_NO_HOOKS(name_, which_) NULL
#define QMM_OVERLAP_DECL_RUN_OVERLAP(fn_) qmm_ukernel_overlap_fn fn_##_run_overlap;
#define QMM_OVERLAP_DECL_NO_RUN_OVERLAP(fn_)
#define QMM_OVERLAP_FN_RUN_OVERLAP(fn_) fn_##_run_overlap
#define QMM_OVERLAP_FN_NO_RUN_OVERLAP(fn_) NULL
/* The microkernels called fn_##_run... of one descriptor. */
#define QMM_MICROKERNELS(fn_, rows_, overlap_)                                         \
    qmm_ukernel_fn fn_##_run;                                                          \
    QMM_ROWS_DECL_##rows_(fn_)                                                         \
    QMM_OVERLAP_DECL_##overlap_(fn_)
/* A descriptor of kernel name_ whose microkernels are called fn_##_run...:
 * the fields given (the entry's, the name, a_type, u8_a), then its code. */
#define QMM_DESCRIPTOR(name_, fn_, rows_, hooks_, overlap_, ...)                        \
    {                                                                                  \
        __VA_ARGS__,                                                                   \
        .is_supported_here = name_##_is_supported_here,                                \
        .run = fn_##_run,                                                              \
        .run_rows = QMM_ROWS_FN_##rows_(fn_),                                          \
        .begin = QMM_HOOKS_FN_##hooks_(name_, begin),                                  \
        .end = QMM_HOOKS_FN_##hooks_(name_, end),                                      \
        .run_overlap = QMM_OVERLAP_FN_##overlap_(fn_),                                 \
    }
/* U8A: the twin, its name the kernel's with "+u8a". */
#define QMM_TWIN_U8A(name_, rows_, overlap_)                                           \
    QMM_MICROKERNELS(qmm_##name_##_u8a, rows_, overlap_)                               \
    static qmm_kernel name_##_u8a_descriptor;
#define QMM_TWIN_NO_U8A(name_, rows_, overlap_)
#define QMM_TWIN_DESC_U8A(name_, rows_, hooks_, overlap_, ...)                          \
    static qmm_kernel name_##_u8a_descriptor =                                         \
        QMM_DESCRIPTOR(name_, qmm_##name_##_u8a, rows_, hooks_, overlap_, __VA_ARGS__,   \
                       .name = #name_ "+u8a", .a_type = QMM_TYPE_U8, .u8_a = NULL);
#define QMM_TWIN_DESC_NO_U8A(name_, ...)
#define QMM_TWIN_PTR_U8A(name_) &name_##_u8a_descriptor
#define QMM_TWIN_PTR_NO_U8A(name_) NULL
#define QMM_KERNEL(name_, rows_, hooks_, overlap_, u8a_, ...)                             \
    QMM_MICROKERNELS(qmm_##name_, rows_, overlap_)                                     \
    QMM_HOOKS_DECL_##hooks_(name_)                                                     \
    QMM_TWIN_##u8a_(name_, rows_, overlap_)                                            \
    static qmm_kernel name_##_descriptor;                                              \
    static int name_##_is_supported_here(void)                                         \
    {                                                                                  \
        return qmm_cpu_has(name_##_descriptor.features) && tile_fits(&name_##_descriptor); \
    }                                                                                  \
    static qmm_kernel name_##_descriptor =                                             \
        QMM_DESCRIPTOR(name_, qmm_##name_, rows_, hooks_, overlap_, __VA_ARGS__,          \
                       .name = #name_, .a_type = QMM_TYPE_I8,                          \
                       .u8_a = QMM_TWIN_PTR_##u8a_(name_));                            \
    QMM_TWIN_DESC_##u8a_(name_, rows_, hooks_, overlap_, __VA_ARGS__)
#include "kernel_list.h"
#undef QMM_KERNEL
#undef QMM_ROWS_DECL_RUN_ROWS
#undef QMM_ROWS_DECL_NO_RUN_ROWS
#undef QMM_ROWS_FN_RUN_ROWS
#undef QMM_ROWS_FN_NO_RUN_ROWS
#undef QMM_HOOKS_DECL_HOOKS
#undef QMM_HOOKS_DECL_NO_HOOKS
#undef QMM_HOOKS_FN_HOOKS
#undef QMM_HOOKS_FN_NO_HOOKS
#undef QMM_OVERLAP_DECL_RUN_OVERLAP
#undef QMM_OVERLAP_DECL_NO_RUN_OVERLAP
#undef QMM_OVERLAP_FN_RUN_OVERLAP
#undef QMM_OVERLAP_FN_NO_RUN_OVERLAP
#undef QMM_MICROKERNELS
#undef QMM_DESCRIPTOR
#undef QMM_TWIN_U8A
#undef QMM_TWIN_NO_U8A
#undef QMM_TWIN_DESC_U8A
#undef QMM_TWIN_DESC_NO_U8A

static const qmm_kernel *const registry[] = {
#define QMM_KERNEL(name_, ...) &name_##_descriptor,
#include "kernel_list.h"
#undef QMM_KERNEL
};
enum { REGISTRY_COUNT = sizeof registry / sizeof registry[0] };

/* Every descriptor with its twin, NULL where none: what scale_tiles writes. */
static qmm_kernel *const scaled[][2] = {
#define QMM_KERNEL(name_, rows_, hooks_, overlap_, u8a_, ...)                             \
    {&name_##_descriptor, QMM_TWIN_PTR_##u8a_(name_)},
#include "kernel_list.h"
#undef QMM_KERNEL
};
#undef QMM_TWIN_PTR_U8A
#undef QMM_TWIN_PTR_NO_U8A
static pthread_once_t scaled_once = PTHREAD_ONCE_INIT;

/* The tiles at this CPU's vector lengths (kernels/kernel.h): a kernel whose
 * vector is absent keeps its 128-bit tile, unsupported anyway. */
static void scale_tiles(void)
{
    for (size_t i = 0; i < REGISTRY_COUNT; i++) {
        const unsigned bytes = qmm_cpu_vector_bytes(scaled[i][0]->vector);
        const unsigned segments = bytes / 16;
        if (segments < 2)
            continue;
        for (size_t t = 0; t < 2 && scaled[i][t] != NULL; t++) {
            qmm_kernel *k = scaled[i][t];
            if (k->scales & QMM_SCALES_M) {
                k->mr *= segments;
                k->rank *= segments;
            }
            if (k->scales & QMM_SCALES_N) {
                k->nr *= segments;
                k->rank *= segments;
            }
        }
    }
}

static const qmm_kernel *const *scaled_registry(void)
{
    pthread_once(&scaled_once, scale_tiles);
    return registry;
}

size_t qmm_registry_count(void)
{
    return REGISTRY_COUNT;
}

const qmm_kernel *qmm_registry_at(size_t i)
{
    return i < REGISTRY_COUNT ? scaled_registry()[i] : NULL;
}

const qmm_kernel *const *qmm_registry_all(void)
{
    return scaled_registry();
}

const qmm_kernel *qmm_registry_find(const char *name)
{
    const qmm_kernel *const *all = scaled_registry();
    for (size_t i = 0; i < REGISTRY_COUNT; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* The public view: filled once, since supported_here asks the CPU. */
static qmm_kernel_info infos[REGISTRY_COUNT];
static pthread_once_t infos_once = PTHREAD_ONCE_INIT;

static void fill_infos(void)
{
    const qmm_kernel *const *all = scaled_registry();
    for (size_t i = 0; i < REGISTRY_COUNT; i++) {
        const qmm_kernel *k = all[i];
        infos[i] = (qmm_kernel_info){k->name, k->isa, k->mr, k->nr,
                                     k->is_supported_here() != 0};
    }
}

size_t qmm_kernel_count(void)
{
    return REGISTRY_COUNT;
}

const qmm_kernel_info *qmm_kernel_at(size_t i)
{
    if (i >= REGISTRY_COUNT)
        return NULL;
    pthread_once(&infos_once, fill_infos);
    return &infos[i];
}
