#include "workspace.h"

#include <pthread.h>
#include <stdlib.h>

#include "../pack/pack.h"
#include "../platform/log.h"

_Static_assert(QMM_WORKSPACE_ALIGN % QMM_PACK_MAX_ALIGN == 0,
               "workspaces must be aligned for every packing format");

typedef struct buffer {
    void *data;
    size_t bytes;
} buffer;

static _Thread_local buffer buffers[QMM_WS_SLOTS];

/* Frees a thread's buffers when it exits: the key's value is its array. */
static pthread_key_t exit_key;
static int have_exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void release(buffer *b)
{
    for (int s = 0; s < QMM_WS_SLOTS; s++) {
        free(b[s].data);
        b[s] = (buffer){NULL, 0};
    }
}

static void release_at_thread_exit(void *array)
{
    release(array);
}

static void make_key(void)
{
    have_exit_key = pthread_key_create(&exit_key, release_at_thread_exit) == 0;
}

/* A process that exits does not run its exiting thread's key destructors;
 * the library's own destructor frees that thread's buffers, and deletes the
 * key so that no destructor points into an unloaded library. */
__attribute__((destructor)) static void release_at_exit(void)
{
    release(buffers);
    if (have_exit_key)
        pthread_key_delete(exit_key);
    have_exit_key = 0;
}

/* Rounded up so that a slowly growing need does not reallocate each call. */
static size_t rounded(size_t bytes)
{
    const size_t step = 4096;
    return bytes > SIZE_MAX - (step - 1) ? 0 : (bytes + step - 1) / step * step;
}

/* The calling thread's buffer of slot, at least bytes long (its contents
 * undefined), or NULL when it cannot be allocated; a buffer that could not
 * grow is kept as it was. */
static void *slot_buffer(enum qmm_workspace_slot slot, size_t bytes)
{
    buffer *b = &buffers[slot];
    if (bytes <= b->bytes && b->data != NULL)
        return b->data;
    pthread_once(&key_once, make_key);
    if (have_exit_key && pthread_getspecific(exit_key) == NULL)
        pthread_setspecific(exit_key, buffers);
    size_t size = rounded(bytes);
    void *data = size != 0 ? aligned_alloc(QMM_WORKSPACE_ALIGN, size) : NULL;
    if (data == NULL) {
        qmm_log("out of memory: a workspace of %zu bytes", bytes);
        return NULL;
    }
    free(b->data);
    *b = (buffer){data, size};
    return data;
}

void *qmm_workspace_take(enum qmm_workspace_slot slot, size_t bytes, size_t *size)
{
    void *data = slot_buffer(slot, bytes);
    if (data != NULL) {
        *size = buffers[slot].bytes;
        buffers[slot] = (buffer){NULL, 0};
    }
    return data;
}

void qmm_workspace_return(enum qmm_workspace_slot slot, void *data, size_t size)
{
    buffer *b = &buffers[slot];
    if (b->data != NULL && b->bytes >= size) {
        free(data);
        return;
    }
    free(b->data);
    *b = (buffer){data, size};
}
