#include "testlib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

long test_failures;

void test_fail(const char *file, int line, const char *fmt, ...)
{
    if (test_failures++ >= 20)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int test_finish(const char *name, long checks)
{
    printf("%s: %ld checks, %ld failures\n", name, checks, test_failures);
    return test_failures == 0 && checks > 0 ? 0 : 1;
}

static uint64_t rng_state = 1;

void test_seed(uint64_t seed)
{
    rng_state = seed ? seed : 1;
}

uint64_t test_rand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

size_t test_rand_below(size_t n)
{
    return (size_t)(test_rand() % n);
}

int8_t test_rand_i8(void)
{
    return (int8_t)(uint8_t)(test_rand() >> 56);
}

const char *const test_layout_names[LAYOUT_COUNT] = {"row", "col", "spaced", "reversed"};

enum { GUARD = 64, PATTERN = 0xA5 };

test_matrix test_matrix_new(size_t rows, size_t cols, size_t elem, test_layout layout,
                            size_t pad)
{
    test_matrix m = {0};
    m.rows = rows;
    m.cols = cols;
    m.elem = elem;
    size_t span;  /* elements from the lowest to the highest element, plus one */
    size_t r = rows ? rows : 1, c = cols ? cols : 1;
    switch (layout) {
    case LAYOUT_ROW:
        m.rs = (ptrdiff_t)(c + pad);
        m.cs = 1;
        break;
    case LAYOUT_COL:
        m.rs = 1;
        m.cs = (ptrdiff_t)(r + pad);
        break;
    case LAYOUT_SPACED:
        m.cs = 2;
        m.rs = (ptrdiff_t)(2 * c + 1);
        break;
    case LAYOUT_REVERSED:
        m.rs = -(ptrdiff_t)(c + pad);
        m.cs = -1;
        break;
    default:
        abort();
    }
    size_t ars = (size_t)(m.rs < 0 ? -m.rs : m.rs), acs = (size_t)(m.cs < 0 ? -m.cs : m.cs);
    span = (r - 1) * ars + (c - 1) * acs + 1;
    m.bytes = span * elem + 2 * GUARD;
    m.mem = malloc(m.bytes);
    if (m.mem == NULL) {
        fprintf(stderr, "test: out of memory for a %zu x %zu matrix\n", rows, cols);
        exit(1);
    }
    memset(m.mem, PATTERN, m.bytes);
    unsigned char *lowest = m.mem + GUARD;
    /* Negative strides start at the far end of the span. */
    size_t start = (m.rs < 0 ? (r - 1) * ars : 0) + (m.cs < 0 ? (c - 1) * acs : 0);
    m.base = lowest + start * elem;
    return m;
}

void test_matrix_free(test_matrix *m)
{
    free(m->mem);
    m->mem = NULL;
}

static void *element(const test_matrix *m, size_t i, size_t j)
{
    return (unsigned char *)m->base + ((ptrdiff_t)i * m->rs + (ptrdiff_t)j * m->cs) * (ptrdiff_t)m->elem;
}

void test_matrix_fill_random_i8(test_matrix *m)
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            *(int8_t *)element(m, i, j) = test_rand_i8();
}

void test_matrix_fill_i8(test_matrix *m, int8_t v)
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            *(int8_t *)element(m, i, j) = v;
}

void test_matrix_fill_i32(test_matrix *m, int32_t v)
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            memcpy(element(m, i, j), &v, sizeof v);
}

int8_t test_i8_at(const test_matrix *m, size_t i, size_t j)
{
    return *(const int8_t *)element(m, i, j);
}

int32_t test_i32_at(const test_matrix *m, size_t i, size_t j)
{
    int32_t v;
    memcpy(&v, element(m, i, j), sizeof v);
    return v;
}

int test_matrix_surroundings_intact(const test_matrix *m)
{
    /* Mark the elements in a shadow map, then check every unmarked byte. */
    unsigned char *own = calloc(m->bytes, 1);
    if (own == NULL)
        abort();
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            memset(own + ((unsigned char *)element(m, i, j) - m->mem), 1, m->elem);
    int ok = 1;
    for (size_t x = 0; x < m->bytes && ok; x++)
        ok = own[x] || m->mem[x] == PATTERN;
    free(own);
    return ok;
}

void test_reference(const test_matrix *a, const test_matrix *b, int32_t *c)
{
    size_t m = a->rows, k = a->cols, n = b->cols;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            uint32_t s = 0;
            for (size_t p = 0; p < k; p++)
                s += (uint32_t)((int32_t)test_i8_at(a, i, p) * test_i8_at(b, p, j));
            c[i * n + j] = (int32_t)s;
        }
}

size_t test_compare(const char *label, const test_matrix *c, const int32_t *ref)
{
    size_t bad = 0;
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            int32_t got = test_i32_at(c, i, j), want = ref[i * c->cols + j];
            if (got != want && bad++ == 0)
                test_fail(__FILE__, __LINE__, "%s: C(%zu,%zu) = %ld, want %ld", label, i, j,
                          (long)got, (long)want);
        }
    if (!test_matrix_surroundings_intact(c)) {
        test_fail(__FILE__, __LINE__, "%s: wrote outside C's elements", label);
        bad++;
    }
    return bad;
}
