/* Random BERT models for the encoder's tests, held as tensors and written in
 * the weight file's format (FORMAT.md) by code of their own, so that the
 * tests check the loader rather than share it. */
#ifndef QMM_ENCODER_TEST_MODEL_WRITER_H
#define QMM_ENCODER_TEST_MODEL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "encoder.h"

enum { MW_F32 = 0, MW_I8 = 1, MW_U8 = 2, MW_I32 = 3 };
enum { MW_MAX_TENSORS = 512 };

typedef struct mw_tensor {
    char name[40];
    uint32_t type, rows, cols;
    void *data;
} mw_tensor;

typedef struct mw_model {
    encoder_config config;
    size_t count;
    mw_tensor tensors[MW_MAX_TENSORS];
} mw_model;

/* How the random model stores its quantized tensors. */
typedef enum mw_weights {
    MW_WEIGHTS_I8_PER_CHANNEL,   /* quantize_dynamic's per-channel int8, zero point 0 */
    MW_WEIGHTS_U8_PER_TENSOR,    /* uint8 with a zero point, one scale per tensor */
} mw_weights;

typedef enum mw_embeddings {
    MW_EMBEDDINGS_U8_PER_TENSOR, /* quantize_dynamic's Gather: uint8, a zero point */
    MW_EMBEDDINGS_F32,
    MW_EMBEDDINGS_I8_PER_ROW,
} mw_embeddings;

/* A random model of config's sizes (its other fields as given), from seed. */
void mw_random(mw_model *m, const encoder_config *config, mw_weights weights,
               mw_embeddings embeddings, uint64_t seed);
void mw_free(mw_model *m);

mw_tensor *mw_find(mw_model *m, const char *name);
const mw_tensor *mw_find_const(const mw_model *m, const char *name);

/* Drops the tensor called name (its data freed); 0 if there is none. */
int mw_remove(mw_model *m, const char *name);

/* The file's bytes (malloc'd), checksum included. */
unsigned char *mw_serialize(const mw_model *m, size_t *size);

/* Rewrites the trailing checksum after the bytes before it were changed. */
void mw_reseal(unsigned char *bytes, size_t size);

int mw_write(const char *path, const unsigned char *bytes, size_t size);

#endif
