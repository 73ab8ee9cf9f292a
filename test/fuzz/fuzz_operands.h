/*
 * A fuzz case's memory: its operands laid out as the case says, filled with
 * its values, and snapshots of everything the library may not write.
 */
#ifndef QMM_FUZZ_OPERANDS_H
#define QMM_FUZZ_OPERANDS_H

#include "fuzz_case.h"
#include "support/testlib.h"

/* Each matrix owns its allocation, or is a view into another's (mem ==
 * NULL): A and B in one shared buffer, or, for the overlap faults, C in an
 * input's memory or an input in C's. In a symbolic plan, whose n == 1 run
 * reads B's first column, B has at least one column; C1 is that run's C. */
typedef struct operands {
    test_matrix a, b, c, c1;
    test_matrix shared;   /* A's and B's buffer when they overlap */
    test_matrix a2;       /* the A of a second qmm_plan_pack_a, which must not count */
} operands;

operands operands_make(const fuzz_case *fc);
void operands_free(operands *o);
/* B's first n columns: B itself but for its column count, owning nothing. */
test_matrix operands_columns(const test_matrix *b, size_t n);

/* Copies of every allocation of a case, taken before the call. */
enum { MAX_OWNERS = 6 };
typedef struct snapshot {
    const test_matrix *owner[MAX_OWNERS];
    unsigned char *copy[MAX_OWNERS];
    int is_output[MAX_OWNERS];   /* C's or C1's */
    size_t count;
} snapshot;

snapshot snapshot_take(const operands *o);
/* Checks that the allocations (the inputs' alone, or all of them) hold what
 * they held; failures go to test_fail under label. */
void snapshot_check(const snapshot *s, int outputs_too, const char *label);
void snapshot_free(snapshot *s);

#endif
