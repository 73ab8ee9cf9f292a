/* What the bench times: a contender is one way of computing a shape's
 * product (a library call and how it is prepared), described once; a trial is
 * a contender on one shape; a library groups the contenders that call it with
 * what it needs before its first call. Each library is a file of its own
 * (library_<name>.c), listed in main.c. */
#ifndef QMM_PEERS_CONTENDER_H
#define QMM_PEERS_CONTENDER_H

#include <stddef.h>

#include "operands.h"

/* The type of C's m×n entries as a contender writes them. The int32 and
 * float results are checked against the exact product; an int8 or uint8 one
 * has no int32 to check and is compared with its peer's instead. */
typedef enum result_type { RESULT_I32, RESULT_F32, RESULT_S8, RESULT_U8 } result_type;

typedef struct trial trial;
typedef struct contender contender;

struct contender {
    const char *name;
    result_type result;
    /* The result is laid out as XNNPACK's output ([batch][channel], see
     * batch_major), else as C m×n row-major. */
    int batch_major;
    /* Prepares t outside the timing, its result buffer already allocated;
     * NULL when there is nothing to prepare. Returns 0 when it cannot. */
    int (*setup)(trial *t, const operands *o);
    /* The timed call; 0 on failure. */
    int (*run)(trial *t, const operands *o);
    /* Frees what setup made (t->state), whether or not it succeeded; NULL
     * when setup makes nothing. */
    void (*teardown)(trial *t);
    /* Text the verdict ends with (oneDNN: the implementation it picked);
     * NULL for none. */
    void (*note)(const trial *t, char *text, size_t size);
    /* The contender computing the same function, whose result an int8 or
     * uint8 one is compared with; NULL for none. */
    const contender *peer;
    /* The qmm contender its speedup is over: NULL for qmm one-shot; for a
     * peer that prepares its weights once, the qmm plan that packs the same
     * operand once. */
    const contender *against;
};

struct trial {
    const contender *of;
    void *state;   /* the contender's own, from setup */
    void *c;       /* the result, m×n entries of of->result's type */
    int ready;     /* set up, and every run succeeded */
    double median; /* seconds */
};

typedef struct library {
    /* Before the first call of any library: its thread count (--threads) and
     * whether it is limited to AVX2 (--avx2). NULL when it needs nothing.
     * Returns 0, having said why on stderr, when it refuses. */
    int (*start)(size_t threads, int avx2);
    /* After the last call; NULL when start leaves nothing to undo. */
    void (*stop)(void);
    /* Its contenders in the report's order, up to a NULL. */
    const contender *const *contenders;
} library;

#endif
