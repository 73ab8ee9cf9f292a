/*
 * Checks of calls with bad arguments: a call valid as it is, changed in one
 * way at a time, must be refused (or, for the changes the header allows,
 * accepted), and a refused call must write nothing.
 */
#ifndef QMM_TEST_BAD_CALL_H
#define QMM_TEST_BAD_CALL_H

#include "qmm/qmm.h"

/* Runs `check` on a copy of `valid`, declared by `declaration` (as
 * "gemm_call c") and changed first by the statements that follow, which
 * name the copy: TEST_CHANGED(gemm_call c, f->c, expect(&c), c.m = 0). */
#define TEST_CHANGED(declaration, valid, check, ...)                                               \
    do {                                                                                           \
        declaration = (valid);                                                                     \
        __VA_ARGS__;                                                                               \
        check;                                                                                     \
    } while (0)

/* Every operand of a small valid call inside one arena, so that a call
 * pointed at overlapping operands stays in memory the test owns, and
 * "nothing written" is one comparison of the whole arena. */
enum { TEST_ARENA_BYTES = 4096 };

typedef struct test_arena {
    unsigned char *mem;     /* TEST_ARENA_BYTES, 64-byte aligned: the operands */
    unsigned char *initial; /* what mem goes back to after each check */
    unsigned char *before;  /* mem as the call checked found it */
} test_arena;

/* An arena of 0xA5 bytes, for the test to write its operands in and keep. */
test_arena test_arena_new(void);
void test_arena_free(test_arena *a);
/* mem as it is now becomes what each check starts from. */
void test_arena_keep(test_arena *a);
/* mem back to what test_arena_keep kept. */
void test_arena_restore(test_arena *a);

/* Around the call a check makes, which may have changed mem beforehand:
 * test_arena_before_call just before it; test_arena_after_call with its
 * status st, which must be want, and with empty nonzero when the call has
 * nothing to write. Unless want is QMM_OK on a call that is not empty, mem
 * must be as the call found it; then it is restored. label names the call
 * and its change in the messages. */
void test_arena_before_call(test_arena *a);
void test_arena_after_call(test_arena *a, qmm_status st, qmm_status want, int empty,
                           const char *label);

#endif
