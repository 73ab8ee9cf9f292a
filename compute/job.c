#include "job.h"

#include <string.h>

#include "../platform/log.h"
#include "loops.h"
#include "partition.h"
#include "threads.h"
#include "workspace.h"

/* What the tasks of one run share. */
typedef struct run_state {
    const qmm_job *job;
    qmm_partition part;
    size_t largest;          /* the largest task's workspace */
    unsigned char *call;     /* the call's own buffer (qmm_workspace_take), of call_bytes: */
    size_t call_bytes;
    int32_t *partials;       /*   tk - 1 partial copies of C, m x n, row-major */
    unsigned char *failed;   /*   per task: its workspace could not be had */
    qmm_c_view sums;         /* the first part's sums: the job's c, or m x n in the buffer */
    const qmm_epilogue *finish;  /* the stage, when the tasks finish their tiles */
} run_state;

static void run_task_in(const run_state *s, size_t t, unsigned char *ws)
{
    size_t part;
    qmm_range r = qmm_partition_range(s->job, &s->part, t, &part);
    qmm_c_view to = s->sums;
    if (part > 0)
        to = (qmm_c_view){s->partials + (part - 1) * s->job->m * s->job->n,
                          (ptrdiff_t)s->job->n, 1};
    qmm_loops_run(s->job, &r, &to, s->finish, ws);
}

static size_t task_workspace(const run_state *s, size_t t)
{
    size_t part;
    qmm_range r = qmm_partition_range(s->job, &s->part, t, &part);
    return qmm_loops_workspace(s->job, &r);
}

static void run_task(void *context, size_t t)
{
    run_state *s = context;
    unsigned char *ws = qmm_workspace(QMM_WS_TASK, task_workspace(s, t));
    if (ws == NULL) {
        s->failed[t] = 1;  /* the caller runs it, in the workspace it set aside */
        return;
    }
    run_task_in(s, t, ws);
}

/* Adds the partial sums of the depth parts after the first to the first's,
 * the last through the stage. */
static void add_partials(const run_state *s)
{
    const qmm_job *job = s->job;
    for (size_t p = 1; p < s->part.tk; p++)
        qmm_tile_put(&s->sums, p + 1 == s->part.tk ? job->epi : NULL, 0, 0, job->m, job->n,
                     s->partials + (p - 1) * job->m * job->n, job->n, QMM_TILE_ADD);
}

/* Whether the sums of a C that is not int32 need a buffer of their own:
 * when a tile's are made in several steps. */
static int needs_sums_buffer(const run_state *s)
{
    const qmm_job *job = s->job;
    return job->epi != NULL && job->epi->type != QMM_TYPE_I32 &&
           (job->blk.k_blocks > 1 || s->part.tk > 1);
}

/* Sets aside, before any task writes C, all a run can need that might not
 * be had: the caller's task workspace for the largest task (a task whose own
 * thread cannot get one runs again on the caller; a workspace only grows, or
 * stays as it was when it cannot, so the caller still has it then, whatever
 * other calls this thread made meanwhile) and the call's own buffer of
 * partial sums and failure flags. */
static qmm_status set_aside(run_state *s, size_t tasks)
{
    size_t need = 0;
    for (size_t t = 0; t < tasks; t++) {
        size_t w = task_workspace(s, t);
        if (w == 0) {
            qmm_log("invalid argument: the packing workspace of %s for k=%zu overflows size_t",
                    s->job->kern->name, s->job->k);
            return QMM_ERR_INVALID_ARG;
        }
        need = w > need ? w : need;
    }
    s->largest = need;
    if (qmm_workspace(QMM_WS_TASK, need) == NULL)
        return QMM_ERR_NO_MEMORY;
    /* tk > 1 only for a C small enough (compute/partition.c): no overflow. */
    const size_t mn = s->job->m * s->job->n;
    const size_t partial_bytes = (s->part.tk - 1) * mn * sizeof(int32_t);
    size_t sums_bytes = 0;
    if (needs_sums_buffer(s)) {
        if (mn > (SIZE_MAX - partial_bytes - tasks) / sizeof(int32_t)) {
            qmm_log("out of memory: the sums of a %zu x %zu C overflow size_t", s->job->m,
                    s->job->n);
            return QMM_ERR_NO_MEMORY;
        }
        sums_bytes = mn * sizeof(int32_t);
    }
    s->call = qmm_workspace_take(QMM_WS_CALL, sums_bytes + partial_bytes + tasks,
                                 &s->call_bytes);
    if (s->call == NULL)
        return QMM_ERR_NO_MEMORY;
    s->sums = s->job->c;
    if (sums_bytes != 0)
        s->sums = (qmm_c_view){(int32_t *)(void *)s->call, (ptrdiff_t)s->job->n, 1};
    s->partials = (int32_t *)(void *)(s->call + sums_bytes);
    s->failed = s->call + sums_bytes + partial_bytes;
    memset(s->failed, 0, tasks);
    return QMM_OK;
}

static qmm_status run(const qmm_job *job)
{
    qmm_team team = qmm_team_join(qmm_partition_threads(job));
    run_state s = {.job = job, .part = qmm_partition_choose(job, team.threads)};
    s.finish = s.part.tk == 1 ? job->epi : NULL;
    const size_t tasks = qmm_partition_tasks(&s.part);
    qmm_team_shrink(&team, tasks);
    qmm_status st = set_aside(&s, tasks);
    if (st == QMM_OK) {
        qmm_team_run(&team, tasks, run_task, &s);
        for (size_t t = 0; t < tasks; t++)
            if (s.failed[t])
                run_task_in(&s, t, qmm_workspace(QMM_WS_TASK, s.largest));
        add_partials(&s);
    }
    if (s.call != NULL)
        qmm_workspace_return(QMM_WS_CALL, s.call, s.call_bytes);
    qmm_team_leave(&team);
    return st;
}

qmm_status qmm_job_run(qmm_job *job)
{
    if (job->k == 0) {
        qmm_tile_put(&job->c, job->epi, 0, 0, job->m, job->n, NULL, 0, QMM_TILE_STORE);
        return QMM_OK;
    }
    qmm_status st = qmm_blocking_init(&job->blk, job->kern, job->m, job->n, job->k);
    if (st == QMM_OK)
        st = run(job);
    if (st != QMM_OK)
        qmm_log("%s: %s", job->kern->name, qmm_status_str(st));
    return st;
}
