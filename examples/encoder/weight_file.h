/* The weight file (FORMAT.md) read into memory, checked, and its tensors
 * looked up by name. */
#ifndef QMM_ENCODER_WEIGHT_FILE_H
#define QMM_ENCODER_WEIGHT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "encoder.h"

enum {
    WF_HEADER_BYTES = 96,
    WF_ENTRY_BYTES = 64,
    WF_NAME_BYTES = 40,
    WF_ALIGN = 64,
    WF_MAX_TENSORS = 4096,
};

typedef enum wf_type { WF_F32 = 0, WF_I8 = 1, WF_U8 = 2, WF_I32 = 3, WF_TYPE_COUNT } wf_type;

typedef struct wf_tensor {
    const char *name;
    wf_type type;
    size_t rows, cols;
    const void *data;
} wf_tensor;

typedef struct weight_file {
    unsigned char *bytes;
    size_t size;
    encoder_config config;
    size_t count;
    wf_tensor *tensors;
} weight_file;

/* Why a call failed, for the caller's message. */
typedef struct wf_why {
    char *text;
    size_t size;
} wf_why;

void wf_say(wf_why why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

size_t wf_type_size(wf_type t);

/* Reads and checks the whole file: magic, version, checksum, configuration,
 * every directory entry's bounds. */
encoder_status wf_open(weight_file *wf, const char *path, wf_why why);
void wf_close(weight_file *wf);

/* The tensor called name, if present (NULL if not). */
const wf_tensor *wf_find(const weight_file *wf, const char *name);

/* The tensor called name, required to exist with one of the types in
 * `types` (a bit per wf_type) and rows x cols elements. */
encoder_status wf_get(const weight_file *wf, const char *name, unsigned types, size_t rows,
                      size_t cols, const wf_tensor **out, wf_why why);

uint64_t wf_fnv1a64(const unsigned char *p, size_t n);

#endif
