#include "fuzz_operands.h"

#include <stdlib.h>
#include <string.h>

static size_t span_bytes(const test_matrix *x)
{
    return test_span(x->rows, x->cols, x->rs, x->cs) * x->elem;
}

/* x as a view at a random place inside the elements of within. */
static void move_into(test_matrix *x, const test_matrix *within, size_t step)
{
    test_matrix old = *x;
    size_t room = span_bytes(within) - span_bytes(&old);
    *x = test_matrix_view(within, step * test_rand_below(room / step + 1), old.rows, old.cols,
                          old.elem, old.rs, old.cs);
    test_matrix_free(&old);
}

/* C and an input overlap: the smaller moves inside the larger, C at a
 * multiple of 4 bytes (it stays aligned for int32). */
static void overlap_c_with(test_matrix *c, test_matrix *input)
{
    if (span_bytes(c) >= span_bytes(input))
        move_into(input, c, 1);
    else
        move_into(c, input, 4);
}

static int8_t minimum(void)
{
    return -128;
}

static int8_t either_end(void)
{
    return test_rand() & 1 ? 127 : -128;
}

static int8_t (*const value_of[VALUES_COUNT])(void) = {
    [VALUES_RANDOM] = test_rand_i8,
    [VALUES_MIN] = minimum,
    [VALUES_ENDS] = either_end,
};

/* A matrix of elem-byte elements at an alignment drawn for the case: any
 * byte for int8, any int32 for C. */
static test_matrix matrix(size_t rows, size_t cols, size_t elem, fuzz_strides s)
{
    return test_matrix_strided(rows, cols, elem, s.rs, s.cs, elem * test_rand_below(64 / elem));
}

operands operands_make(const fuzz_case *fc)
{
    operands o = {0};
    const size_t m = fc->m, n = fc->n, k = fc->k;
    const size_t b_cols = fc->entry == ENTRY_PLAN_SYMBOLIC && n == 0 ? 1 : n;
    test_seed(fc->value_seed);
    if (fc->ab_share) {
        size_t sa = test_span(m, k, fc->a.rs, fc->a.cs);
        size_t sb = test_span(k, b_cols, fc->b.rs, fc->b.cs);
        o.shared = matrix(1, sa + sb, 1, (fuzz_strides){1, 1});
        o.a = test_matrix_view(&o.shared, 0, m, k, 1, fc->a.rs, fc->a.cs);
        o.b = test_matrix_view(&o.shared, test_rand_below(sa + 1), k, b_cols, 1, fc->b.rs,
                               fc->b.cs);
    } else {
        o.a = matrix(m, k, 1, fc->a);
        o.b = matrix(k, b_cols, 1, fc->b);
    }
    o.c = matrix(m, n, 4, fc->c);
    if (fc->entry == ENTRY_PLAN_SYMBOLIC)
        o.c1 = matrix(m, 1, 4, (fuzz_strides){(ptrdiff_t)fc->ldc1, 1});
    if (fc->fault == FAULT_PACK_TWICE)
        o.a2 = matrix(m, k, 1, fc->a);
    if (fc->fault == FAULT_C_OVERLAPS_A)
        overlap_c_with(&o.c, &o.a);
    if (fc->fault == FAULT_C_OVERLAPS_B)
        overlap_c_with(&o.c, &o.b);
    test_matrix_fill_by(&o.a, value_of[fc->values]);
    test_matrix_fill_by(&o.b, value_of[fc->values]);
    /* Other values than A's, whatever the case's. */
    test_matrix_fill_random_i8(&o.a2);
    return o;
}

void operands_free(operands *o)
{
    test_matrix *all[] = {&o->a, &o->b, &o->c, &o->c1, &o->shared, &o->a2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        test_matrix_free(all[i]);
}

test_matrix operands_columns(const test_matrix *b, size_t n)
{
    test_matrix v = *b;
    v.mem = NULL;
    v.cols = n;
    return v;
}

snapshot snapshot_take(const operands *o)
{
    snapshot s = {0};
    const test_matrix *all[] = {&o->a, &o->b, &o->shared, &o->a2, &o->c, &o->c1};
    for (size_t i = 0; i < MAX_OWNERS; i++) {
        if (all[i]->mem == NULL)
            continue;
        unsigned char *copy = malloc(all[i]->bytes);
        if (copy == NULL)
            abort();
        memcpy(copy, all[i]->mem, all[i]->bytes);
        s.owner[s.count] = all[i];
        s.copy[s.count] = copy;
        s.is_output[s.count++] = all[i] == &o->c || all[i] == &o->c1;
    }
    return s;
}

void snapshot_check(const snapshot *s, int outputs_too, const char *label)
{
    for (size_t i = 0; i < s->count; i++)
        if (outputs_too || !s->is_output[i])
            CHECK(memcmp(s->copy[i], s->owner[i]->mem, s->owner[i]->bytes) == 0,
                  "%s: wrote the memory of %s", label,
                  s->is_output[i] ? "C (on a refused call)" : "an input");
}

void snapshot_free(snapshot *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->copy[i]);
}
