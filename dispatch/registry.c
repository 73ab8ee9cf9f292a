#include "registry.h"

#include <pthread.h>
#include <string.h>

#include "qmm/qmm.h"

#define QMM_KERNEL(sym) extern const qmm_kernel sym;
#include "kernel_list.h"
#undef QMM_KERNEL

static const qmm_kernel *const registry[] = {
#define QMM_KERNEL(sym) &sym,
#include "kernel_list.h"
#undef QMM_KERNEL
};
enum { REGISTRY_COUNT = sizeof registry / sizeof registry[0] };

size_t qmm_registry_count(void)
{
    return REGISTRY_COUNT;
}

const qmm_kernel *qmm_registry_at(size_t i)
{
    return i < REGISTRY_COUNT ? registry[i] : NULL;
}

const qmm_kernel *const *qmm_registry_all(void)
{
    return registry;
}

const qmm_kernel *qmm_registry_find(const char *name)
{
    for (size_t i = 0; i < REGISTRY_COUNT; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* The public view: filled once, since supported_here asks the CPU. */
static qmm_kernel_info infos[REGISTRY_COUNT];
static pthread_once_t infos_once = PTHREAD_ONCE_INIT;

static void fill_infos(void)
{
    for (size_t i = 0; i < REGISTRY_COUNT; i++) {
        const qmm_kernel *k = registry[i];
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
