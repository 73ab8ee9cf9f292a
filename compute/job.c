#include "job.h"

#include <stdatomic.h>

#include "../platform/log.h"
#include "loops.h"
#include "packed.h"
#include "partition.h"
#include "threads.h"
#include "work.h"
#include "workspace.h"

/* The most bytes of shared packed panels one sweep holds: the call's buffer,
 * which its calling thread keeps for the next call. 4096^3 on the AVX2 kernel
 * (A and B sign-extended to int16) is one sweep. */
#define SWEEP_BYTES ((size_t)64 << 20)

/* A sweep cut in depth still holds this many panels of each operand, so that
 * its tasks have panels to share out. */
enum { SWEEP_MIN_PANELS = 8 };

static atomic_size_t sweep_bytes_set;

void qmm_job_set_sweep_bytes(size_t bytes)
{
    atomic_store_explicit(&sweep_bytes_set, bytes, memory_order_relaxed);
}

/* Where A's panels come from. */
typedef enum a_source {
    A_PLAN,      /* packed by a plan, every one */
    A_IN_PLACE,  /* A's own rows; only a last partial panel packed */
    A_PACKED,    /* packed by the tasks */
} a_source;

/* Whether the tasks pack B (else a plan packed it). */
static int job_packs_b(const qmm_job *job)
{
    return job->packed_b == NULL;
}

static a_source a_source_of(const qmm_job *job)
{
    return job->packed_a != NULL     ? A_PLAN
           : qmm_loops_a_in_place(job) ? A_IN_PLACE
                                       : A_PACKED;
}

/* The size of every sweep but the last ones of each dimension: rows and
 * columns (multiples of mr and nr), k blocks. Rows, then columns, then k
 * blocks are cut only as far as the bound needs: the depth only when a few
 * panels of each operand over all of it do not fit, and then C's sums are
 * revisited once per sweep in depth. Each sweep costs a team a fork and a
 * join, so they are few. */
typedef struct sweep_cut {
    size_t rows, cols, k_blocks;
} sweep_cut;

/* How many things of `each` bytes fit in room: at least one. */
static size_t how_many(double room, double each)
{
    const double n = room / each;
    return n < 1 ? 1 : (size_t)n;
}

static sweep_cut cut(const qmm_job *job)
{
    const qmm_blocking *blk = &job->blk;
    const size_t set = atomic_load_explicit(&sweep_bytes_set, memory_order_relaxed);
    const double bound = (double)(set != 0 ? set : SWEEP_BYTES);
    const size_t a_panel = a_source_of(job) == A_PACKED ? blk->a_panel[0] : 0;
    const size_t b_panel = job_packs_b(job) ? blk->b_panel[0] : 0;
    sweep_cut c = {blk->m_panels, blk->n_panels, blk->k_blocks};
    const double strip = (double)(a_panel + b_panel) * SWEEP_MIN_PANELS;
    if (strip * (double)c.k_blocks > bound)
        c.k_blocks = how_many(bound, strip);
    /* Bytes of one panel over the sweep's depth. */
    const double a_line = (double)a_panel * (double)c.k_blocks;
    const double b_line = (double)b_panel * (double)c.k_blocks;
    if (a_line * (double)c.rows > bound / 2)
        c.rows = how_many(bound / 2, a_line);
    const double b_room = bound - a_line * (double)c.rows;
    if (b_line * (double)c.cols > b_room)
        c.cols = how_many(b_room, b_line);
    c.rows *= job->kern->mr;
    c.cols *= job->kern->nr;
    return c;
}

static size_t sweep_count(const qmm_job *job, const sweep_cut *c)
{
    return qmm_ceil_div(job->m, c->rows) * qmm_ceil_div(job->n, c->cols) *
           qmm_ceil_div(job->blk.k_blocks, c->k_blocks);
}

/* Sweep s: the depth innermost, then columns, then rows. */
static qmm_range sweep_at(const qmm_job *job, const sweep_cut *c, size_t s)
{
    const size_t in_k = qmm_ceil_div(job->blk.k_blocks, c->k_blocks);
    const size_t in_n = qmm_ceil_div(job->n, c->cols);
    const size_t gk = s % in_k, gn = s / in_k % in_n, gm = s / (in_k * in_n);
    qmm_range r = {.i0 = gm * c->rows, .j0 = gn * c->cols, .kb0 = gk * c->k_blocks};
    r.i1 = job->m - r.i0 < c->rows ? job->m : r.i0 + c->rows;
    r.j1 = job->n - r.j0 < c->cols ? job->n : r.j0 + c->cols;
    r.kb1 = job->blk.k_blocks - r.kb0 < c->k_blocks ? job->blk.k_blocks : r.kb0 + c->k_blocks;
    return r;
}

/* The call's buffer: the largest sweep's shared panels of A and of B and
 * their states (an operand no two tasks share needs none), every task's own
 * region, the sums of a C that is not int32 when a tile's are made in several
 * steps, and the partial copies of C of a depth split. */
typedef struct call_layout {
    size_t a, b, a_state, b_state, own, sums, partials, total;
} call_layout;

/* What the buffer must hold, found by splitting every sweep first. */
typedef struct call_needs {
    int a_shared, b_shared;  /* some sweep shares A's panels, B's */
    size_t tasks, tk;        /* the most tasks and depth parts of a sweep */
    size_t own;              /* the largest task's own region */
} call_needs;

static size_t aligned(size_t bytes)
{
    return bytes > SIZE_MAX - (QMM_WORKSPACE_ALIGN - 1)
               ? 0
               : (bytes + QMM_WORKSPACE_ALIGN - 1) / QMM_WORKSPACE_ALIGN * QMM_WORKSPACE_ALIGN;
}

/* What the tasks of one sweep share. */
typedef struct run_state {
    const qmm_job *job;
    qmm_panels a, b;
    qmm_range sweep;
    qmm_partition part;
    int first_k, last_k;     /* the sweep begins, ends the depth */
    qmm_c_view sums;         /* part 0's sums: the job's c, or m x n in the buffer */
    int32_t *partials;       /* parts 1..tk-1: m x n each, row-major */
    unsigned char *own;      /* task t's own region at own + t * own_bytes */
    size_t own_bytes, hold_a;
    atomic_uint_least64_t packed_a, packed_b, tiles;
} run_state;

/* A's rows a task keeps packed for a k block, when no other task reads them:
 * HOLD_A_BYTES among the team, times the kernel's speed, else an A block at a
 * time for each B block. A faster kernel loses more to repacking A for every
 * block of B than to reading A from a larger buffer: at 4096^3 on the AMX
 * Xeon, A held ran 1.3x faster than A repacked (the AVX2 kernel, the other way
 * round, 1.3x slower). */
#define HOLD_A_BYTES ((size_t)4 << 20)

/* Task t of the sweep split by part, with where its sums go. */
static qmm_task_out task_out(const run_state *s, const qmm_task *task, qmm_c_view *partial)
{
    const qmm_job *job = s->job;
    const size_t part = task->part;
    if (part > 0)
        *partial = (qmm_c_view){s->partials + (part - 1) * job->m * job->n, (ptrdiff_t)job->n, 1};
    return (qmm_task_out){
        .to = part == 0 ? &s->sums : partial,
        .fresh = part > 0 || s->first_k,
        .finish = part == 0 && s->part.tk == 1 && s->last_k ? job->epi : NULL,
        .a_turn = task->a_turn,
        .b_turn = task->b_turn,
        .hold_a = s->hold_a,
    };
}

static void run_task(void *context, size_t t)
{
    run_state *s = context;
    const qmm_job *job = s->job;
    const qmm_task task = qmm_partition_task(job, &s->part, &s->sweep, t);
    qmm_c_view partial = {0};
    qmm_task_out out = task_out(s, &task, &partial);
    out.own = s->own + t * s->own_bytes;
    qmm_work done = {0};
    qmm_loops_run(job, &s->a, &s->b, &task.range, &out, &done);
    atomic_fetch_add_explicit(&s->packed_a, done.packed_a, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->packed_b, done.packed_b, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->tiles, done.tiles, memory_order_relaxed);
}

/* Adds the partial sums of the sweep's depth parts after the first to the
 * first's, the last through the stage when the sweep ends the depth; returns
 * the bytes added. */
static uint64_t add_partials(const run_state *s)
{
    const qmm_job *job = s->job;
    const qmm_range *w = &s->sweep;
    const size_t rows = w->i1 - w->i0, cols = w->j1 - w->j0;
    for (size_t p = 1; p < s->part.tk; p++)
        qmm_tile_put(&s->sums, p + 1 == s->part.tk && s->last_k ? job->epi : NULL, w->i0, w->j0,
                     rows, cols, s->partials + (p - 1) * job->m * job->n + w->i0 * job->n + w->j0,
                     job->n, QMM_TILE_ADD);
    return (uint64_t)(s->part.tk - 1) * rows * cols * sizeof(int32_t);
}

/* Splits every sweep as the run will, for what its buffer must hold. */
static call_needs needs_of(run_state *s, const sweep_cut *c, size_t sweeps, size_t threads,
                           a_source src)
{
    call_needs n = {.tasks = 1, .tk = 1};
    for (size_t i = 0; i < sweeps; i++) {
        s->sweep = sweep_at(s->job, c, i);
        s->part = qmm_partition_choose(s->job, &s->sweep, threads);
        const size_t tasks = qmm_partition_tasks(&s->part);
        n.tasks = tasks > n.tasks ? tasks : n.tasks;
        n.tk = s->part.tk > n.tk ? s->part.tk : n.tk;
        n.a_shared |= src == A_PACKED && s->part.tn > 1;
        n.b_shared |= job_packs_b(s->job) && s->part.tm > 1;
        for (size_t t = 0; t < tasks; t++) {
            const qmm_task task = qmm_partition_task(s->job, &s->part, &s->sweep, t);
            qmm_c_view partial = {0};
            const qmm_task_out out = task_out(s, &task, &partial);
            const size_t own = qmm_loops_own_bytes(s->job, &task.range, &out);
            n.own = own > n.own ? own : n.own;
        }
    }
    return n;
}

/* Adds a part of bytes (0 standing for an overflow when it may not be 0) to
 * the layout's total, aligned; returns the part, 0 once the total overflows. */
static size_t place(call_layout *l, size_t bytes, int empty_ok)
{
    const size_t part = aligned(bytes);
    if ((part == 0 && !empty_ok) || part > SIZE_MAX - l->total) {
        l->total = SIZE_MAX;
        return 0;
    }
    l->total += part;
    return part;
}

/* The call's buffer for sweeps up to the first (the largest in every
 * dimension) and the needs found; total 0 when that overflows size_t. */
static call_layout lay_out(const qmm_job *job, a_source src, const qmm_range *first,
                           const call_needs *n)
{
    const qmm_blocking *blk = &job->blk;
    const size_t a_count = src == A_IN_PLACE                ? 1
                           : src == A_PACKED && n->a_shared ? qmm_ceil_div(first->i1, job->kern->mr)
                                                            : 0;
    const size_t b_count = n->b_shared ? qmm_ceil_div(first->j1, job->kern->nr) : 0;
    const size_t depth = first->kb1;
    const size_t mn = job->m * job->n;  /* bounded by C's check */
    const int sums = job->epi != NULL && job->epi->type != QMM_TYPE_I32 &&
                     (blk->k_blocks > 1 || n->tk > 1);
    call_layout l = {0};
    l.a = place(&l, qmm_panels_bytes(blk->a_panel, blk, 0, depth, a_count), a_count == 0);
    l.b = place(&l, qmm_panels_bytes(blk->b_panel, blk, 0, depth, b_count), b_count == 0);
    l.a_state = place(&l, depth * a_count, 1);
    l.b_state = place(&l, depth * b_count, 1);
    /* Each task's region is a few blocks, and there are at most QMM_MAX_THREADS. */
    l.own = place(&l, n->tasks * aligned(n->own), 1);
    if (sums)
        l.sums = place(&l, mn > SIZE_MAX / sizeof(int32_t) ? 0 : mn * sizeof(int32_t), 0);
    /* tk > 1 only for a C small enough (compute/partition.c): no overflow. */
    l.partials = place(&l, (n->tk - 1) * mn * sizeof(int32_t), 1);
    if (l.total == SIZE_MAX)
        l.total = 0;
    return l;
}

/* The products of the job's batch. */
static size_t batch_count(const qmm_job *job)
{
    return job->batch > 1 ? job->batch : 1;
}

/* The job's product `item` of its batch, as a job of one. */
static qmm_job batch_item(const qmm_job *job, size_t item)
{
    qmm_job one = *job;
    one.batch = 1;
    if (item > 0) {
        one.a = job->a + item * job->a_step;
        if (job->packed_b != NULL)
            one.packed_b = job->packed_b + item * job->packed_b_step;
        else
            one.b = job->b + item * job->b_step;
        one.epi = job->epi + item;
    }
    return one;
}

/* One product's sweeps, its panels in s->a and s->b, on the team. */
static void run_sweeps(run_state *s, const sweep_cut *c, size_t sweeps, const call_needs *needs,
                       const qmm_team *team, qmm_work *work)
{
    const qmm_job *job = s->job;
    const qmm_kernel *kern = job->kern;
    const qmm_blocking *blk = &job->blk;
    if (a_source_of(job) == A_IN_PLACE)
        qmm_panels_reset(&s->a, 0, 1, blk->m_panels - 1, 1);
    /* Shared A stays packed from one column sweep to the next of the same
     * rows and depth. */
    size_t held_i0 = SIZE_MAX, held_kb0 = SIZE_MAX;
    for (size_t i = 0; i < sweeps; i++) {
        s->sweep = sweep_at(job, c, i);
        const qmm_range *w = &s->sweep;
        s->first_k = w->kb0 == 0;
        s->last_k = w->kb1 == blk->k_blocks;
        s->part = qmm_partition_choose(job, w, team->threads);
        if (needs->a_shared && (w->i0 != held_i0 || w->kb0 != held_kb0)) {
            qmm_panels_reset(&s->a, w->kb0, w->kb1, w->i0 / kern->mr,
                             qmm_ceil_div(w->i1 - w->i0, kern->mr));
            held_i0 = w->i0;
            held_kb0 = w->kb0;
        }
        if (needs->b_shared)
            qmm_panels_reset(&s->b, w->kb0, w->kb1, w->j0 / kern->nr,
                             qmm_ceil_div(w->j1 - w->j0, kern->nr));
        /* The sweeps of the first rows pack every panel of B once; later
         * rows pack them again. */
        s->b.sums = w->i0 == 0 ? job->b_sums : NULL;
        s->b.sums_factor = job->b_sums_factor;
        const size_t tasks = qmm_partition_tasks(&s->part);
        qmm_team_run(team, tasks, run_task, s);
        work->reduced += add_partials(s);
        work->tasks += tasks;
    }
}

static qmm_status run(const qmm_job *job)
{
    const qmm_kernel *kern = job->kern;
    const qmm_blocking *blk = &job->blk;
    const a_source src = a_source_of(job);
    const sweep_cut c = cut(job);
    const size_t sweeps = sweep_count(job, &c);
    qmm_team team = qmm_team_join(qmm_partition_threads(job));
    run_state s = {.job = job,
                   .sums = job->c,
                   .hold_a = (size_t)((double)HOLD_A_BYTES * qmm_partition_speedup(kern)) /
                             team.threads};
    const call_needs needs = needs_of(&s, &c, sweeps, team.threads, src);
    qmm_team_shrink(&team, needs.tasks);
    const qmm_range first = sweep_at(job, &c, 0);
    const call_layout l = lay_out(job, src, &first, &needs);
    size_t got = 0;
    unsigned char *buf = l.total == 0 ? NULL : qmm_workspace_take(QMM_WS_CALL, l.total, &got);
    if (buf == NULL) {
        if (l.total == 0)
            qmm_log("out of memory: the packed panels and sums of %s for m=%zu n=%zu k=%zu "
                    "overflow size_t", kern->name, job->m, job->n, job->k);
        qmm_team_leave(&team);
        return QMM_ERR_NO_MEMORY;
    }
    unsigned char *const panels = buf, *at = buf + l.a + l.b + l.a_state + l.b_state;
    s.own = at;
    s.own_bytes = aligned(needs.own);
    at += l.own;
    if (l.sums != 0)
        s.sums = (qmm_c_view){(int32_t *)(void *)at, (ptrdiff_t)job->n, 1};
    s.partials = (int32_t *)(void *)(at + l.sums);
    const size_t items = batch_count(job);
    qmm_work work = {.threads = team.threads, .sweeps = sweeps * items};
    for (size_t item = 0; item < items; item++) {
        const qmm_job one = batch_item(job, item);
        s.job = &one;
        s.a = src == A_PLAN
                  ? qmm_packed(kern, blk, QMM_PACKED_A, one.m, NULL, 0, 0, one.packed_a)
                  : (qmm_panels){.format = kern->a_format, .r = kern->mr, .src = one.a,
                                 .ls = one.rsa, .ds = one.csa, .lines = one.m,
                                 .bytes = blk->a_panel, .data = panels,
                                 .state = (atomic_uchar *)(panels + l.a + l.b),
                                 .run = qmm_panels_run(kern->mr, blk->mc / kern->mr,
                                                       team.threads)};
        s.b = !job_packs_b(&one)
                  ? qmm_packed(kern, blk, QMM_PACKED_B, one.n, NULL, 0, 0, one.packed_b)
                  : (qmm_panels){.format = kern->b_format, .r = kern->nr, .src = one.b,
                                 .ls = one.csb, .ds = one.rsb, .lines = one.n,
                                 .bytes = blk->b_panel, .data = panels + l.a,
                                 .state = (atomic_uchar *)(panels + l.a + l.b + l.a_state),
                                 .run = qmm_panels_run(kern->nr, blk->nc / kern->nr,
                                                       team.threads)};
        run_sweeps(&s, &c, sweeps, &needs, &team, &work);
    }
    qmm_workspace_return(QMM_WS_CALL, buf, got);
    qmm_team_leave(&team);
    work.packed_a = atomic_load(&s.packed_a);
    work.packed_b = atomic_load(&s.packed_b);
    work.tiles = atomic_load(&s.tiles);
    qmm_work_record(&work);
    return QMM_OK;
}

qmm_status qmm_job_run(qmm_job *job)
{
    if (job->k == 0) {
        for (size_t item = 0; item < batch_count(job); item++) {
            const qmm_job one = batch_item(job, item);
            qmm_tile_put(&one.c, one.epi, 0, 0, one.m, one.n, NULL, 0, QMM_TILE_STORE);
        }
        qmm_work_record(&(qmm_work){.threads = 1});
        return QMM_OK;
    }
    qmm_status st = qmm_blocking_init(&job->blk, job->kern, job->m, job->n, job->k);
    if (st == QMM_OK)
        st = run(job);
    if (st != QMM_OK)
        qmm_log("%s: %s", job->kern->name, qmm_status_str(st));
    return st;
}
