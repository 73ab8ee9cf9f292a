#include "testlib.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/registry.h"

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

int test_mode_main(int argc, char **argv, const char *program, const test_mode *modes,
                   size_t count, const long *checks)
{
    for (size_t i = 0; argc == 2 && i < count; i++)
        if (strcmp(argv[1], modes[i].name) == 0) {
            modes[i].run();
            char name[128];
            snprintf(name, sizeof name, "%s %s", program, argv[1]);
            return test_finish(name, *checks);
        }
    fprintf(stderr, "usage: %s MODE; modes:", program);
    for (size_t i = 0; i < count; i++)
        fprintf(stderr, " %s", modes[i].name);
    fputc('\n', stderr);
    return 2;
}

static const char *kernels_mode(void)
{
    const char *which = getenv("QMM_TEST_KERNELS");
    return which != NULL ? which : "all";
}

int test_all_kernels(void)
{
    return strcmp(kernels_mode(), "all") == 0;
}

/* Whether k is the best ranked of the kernels supported here that share its
 * role (matrix or matrix-vector): what this CPU's tiers bring. */
static int top_of_role(const qmm_kernel *k)
{
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *o = qmm_registry_at(i);
        if (o->is_supported_here() && (o->nr == 1) == (k->nr == 1) && o->rank > k->rank)
            return 0;
    }
    return 1;
}

int test_kernel_wanted(const qmm_kernel *k)
{
    const char *which = kernels_mode();
    if (strcmp(which, "all") == 0)
        return 1;
    if (strcmp(which, "scalable") == 0)
        return k->is_supported_here() && k->vector != 0;
    if (strcmp(which, "selected") == 0)
        return k->is_supported_here() && top_of_role(k);
    CHECK(0, "QMM_TEST_KERNELS=%s: not all, scalable or selected", which);
    return 0;
}

void test_each_kernel(long *checks, const char **forced, void (*suite)(void),
                      void (*unsupported)(const char *kernel))
{
    if (strcmp(kernels_mode(), "selected") == 0)
        return;
    for (size_t i = 0; i < qmm_kernel_count(); i++) {
        const qmm_kernel_info *kern = qmm_kernel_at(i);
        if ((!kern->supported_here && unsupported == NULL) ||
            !test_kernel_wanted(qmm_registry_at(i)))
            continue;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("QMM_KERNEL", kern->name, 1);
            *forced = kern->name;
            *checks = test_failures = 0; /* the parent's so far are not this child's */
            if (kern->supported_here)
                suite();
            else
                unsupported(kern->name);
            int rc = test_finish(kern->name, *checks);
            fflush(stdout);
            _exit(rc);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "QMM_KERNEL=%s: the child failed (status %d)", kern->name, status);
        ++*checks;
    }
}

int test_each_kernel_main(int argc, char **argv, const char *name, long *checks,
                          const char **forced, void (*suite)(void),
                          void (*unsupported)(const char *kernel))
{
    if (argc == 2) {
        setenv("QMM_KERNEL", argv[1], 1);
        *forced = argv[1];
        suite();
        return test_finish(argv[1], *checks);
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [KERNEL]\n", name);
        return 2;
    }
    unsetenv("QMM_KERNEL");
    test_each_kernel(checks, forced, suite, unsupported);
    return -1;
}

static uint64_t rng_state = 1;

size_t test_thread_counts(int some, size_t key, size_t counts[TEST_MAX_THREADS])
{
    if (some) {
        counts[0] = 1;
        counts[1] = 2 + key % (TEST_MAX_THREADS - 1);
        return 2;
    }
    for (size_t t = 0; t < TEST_MAX_THREADS; t++)
        counts[t] = t + 1;
    return TEST_MAX_THREADS;
}

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

double test_rand_unit(void)
{
    return (double)(test_rand() >> 11) * 0x1p-53;
}

double test_rand_signed(void)
{
    return 2 * test_rand_unit() - 1;
}

const char *const test_layout_names[LAYOUT_COUNT] = {"row", "col", "spaced", "reversed"};

enum { GUARD = 64, PATTERN = 0xA5 };

static size_t magnitude(ptrdiff_t s)
{
    return s < 0 ? (size_t)0 - (size_t)s : (size_t)s;
}

size_t test_span(size_t rows, size_t cols, ptrdiff_t rs, ptrdiff_t cs)
{
    if (rows == 0 || cols == 0)
        return 0;
    return (rows - 1) * magnitude(rs) + (cols - 1) * magnitude(cs) + 1;
}

/* Element offset of the lowest element from element (0,0): negative strides
 * start at the far end of the span. */
static size_t lowest_to_origin(size_t rows, size_t cols, ptrdiff_t rs, ptrdiff_t cs)
{
    return (rs < 0 ? (rows - 1) * magnitude(rs) : 0) + (cs < 0 ? (cols - 1) * magnitude(cs) : 0);
}

/* rows x cols with its lowest element at byte lowest. */
static test_matrix place(unsigned char *lowest, size_t rows, size_t cols, size_t elem,
                         ptrdiff_t rs, ptrdiff_t cs)
{
    test_matrix m = {.rows = rows, .cols = cols, .elem = elem, .rs = rs, .cs = cs};
    size_t r = rows ? rows : 1, c = cols ? cols : 1;
    m.base = lowest + lowest_to_origin(r, c, rs, cs) * elem;
    return m;
}

test_matrix test_matrix_strided(size_t rows, size_t cols, size_t elem, ptrdiff_t rs,
                                ptrdiff_t cs, size_t shift)
{
    size_t span = test_span(rows ? rows : 1, cols ? cols : 1, rs, cs);
    size_t bytes = (GUARD + shift + span * elem + GUARD + GUARD - 1) / GUARD * GUARD;
    unsigned char *mem = aligned_alloc(GUARD, bytes);
    if (mem == NULL) {
        fprintf(stderr, "test: out of memory for a %zu x %zu matrix\n", rows, cols);
        exit(1);
    }
    memset(mem, PATTERN, bytes);
    test_matrix m = place(mem + GUARD + shift, rows, cols, elem, rs, cs);
    m.mem = mem;
    m.bytes = bytes;
    return m;
}

test_matrix test_matrix_new(size_t rows, size_t cols, size_t elem, test_layout layout,
                            size_t pad)
{
    ptrdiff_t r = (ptrdiff_t)(rows ? rows : 1), c = (ptrdiff_t)(cols ? cols : 1),
              p = (ptrdiff_t)pad;
    switch (layout) {
    case LAYOUT_ROW:
        return test_matrix_strided(rows, cols, elem, c + p, 1, 0);
    case LAYOUT_COL:
        return test_matrix_strided(rows, cols, elem, 1, r + p, 0);
    case LAYOUT_SPACED:
        return test_matrix_strided(rows, cols, elem, 2 * c + 1, 2, 0);
    case LAYOUT_REVERSED:
        return test_matrix_strided(rows, cols, elem, -(c + p), -1, 0);
    default:
        abort();
    }
}

test_matrix test_matrix_view(const test_matrix *within, size_t offset, size_t rows,
                             size_t cols, size_t elem, ptrdiff_t rs, ptrdiff_t cs)
{
    size_t r = within->rows ? within->rows : 1, c = within->cols ? within->cols : 1;
    unsigned char *lowest = (unsigned char *)within->base -
                            lowest_to_origin(r, c, within->rs, within->cs) * within->elem;
    return place(lowest + offset, rows, cols, elem, rs, cs);
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

void test_matrix_fill_by(test_matrix *m, int8_t (*value)(void))
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            *(int8_t *)element(m, i, j) = value();
}

void test_matrix_fill_random_i8(test_matrix *m)
{
    test_matrix_fill_by(m, test_rand_i8);
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

/* The operand as a dense row-major int32 array (malloc'd, at least one element). */
static int32_t *dense(const test_matrix *x)
{
    int32_t *d = malloc((x->rows * x->cols + 1) * sizeof *d);
    if (d == NULL)
        abort();
    for (size_t i = 0; i < x->rows; i++)
        for (size_t j = 0; j < x->cols; j++)
            d[i * x->cols + j] = test_i8_at(x, i, j);
    return d;
}

static void reference(const test_matrix *a, int a_u8, const test_matrix *b, int32_t *c)
{
    size_t m = a->rows, k = a->cols, n = b->cols;
    int32_t *da = dense(a), *db = dense(b);
    uint32_t *acc = calloc(n + 1, sizeof *acc);
    if (acc == NULL)
        abort();
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++)
            acc[j] = 0;
        for (size_t p = 0; p < k; p++) {
            uint32_t x = a_u8 ? (uint8_t)da[i * k + p] : (uint32_t)da[i * k + p];
            for (size_t j = 0; j < n; j++)
                acc[j] += x * (uint32_t)db[p * n + j];
        }
        for (size_t j = 0; j < n; j++)
            c[i * n + j] = (int32_t)acc[j];
    }
    free(acc);
    free(da);
    free(db);
}

void test_reference(const test_matrix *a, const test_matrix *b, int32_t *c)
{
    reference(a, 0, b, c);
}

void test_reference_a_u8(const test_matrix *a, const test_matrix *b, int32_t *c)
{
    reference(a, 1, b, c);
}

test_dd test_dot2(const double *a, size_t as, const double *b, size_t bs, size_t k)
{
    double s = 0.0, c = 0.0;
    for (size_t d = 0; d < k; d++) {
        const double x = a[d * as], y = b[d * bs];
        const double prod = x * y, prod_err = fma(x, y, -prod);
        const double sum = s + prod, z = sum - s;
        const double sum_err = (s - (sum - z)) + (prod - z);
        s = sum;
        c += prod_err + sum_err;
    }
    const double hi = s + c;
    return (test_dd){hi, c - (hi - s)};
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
