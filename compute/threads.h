/*
 * Threads: how many a call may use, and the back end that runs its tasks.
 *
 * The count is what qmm_set_num_threads() last set, else QMM_NUM_THREADS,
 * else the CPUs of the process's affinity mask (Linux and Android; elsewhere
 * the CPUs online). The back end is the engine's
 * parallel-for (qmm_set_parallel_for) when it gave one, else OpenMP (when the
 * build has it), else the calling thread alone.
 *
 * A call joins a team before it splits its work: the team has at most the
 * thread count, and with OpenMP fewer when other calls already keep threads
 * busy (every call in flight counts its threads against one budget of the
 * thread count, so that many user threads calling at once do not multiply
 * threads), or one thread inside an OpenMP parallel region (never a nested
 * region). A team of one runs its tasks on the calling thread, in order, with
 * no synchronisation.
 */
#ifndef QMM_THREADS_H
#define QMM_THREADS_H

#include <stddef.h>

#include "qmm/qmm.h"

typedef struct qmm_team {
    size_t threads;     /* how many tasks may run at once; >= 1 */
    size_t budgeted;    /* threads counted against the OpenMP budget; 0 for none */
    qmm_parallel_for_fn *parallel_for;  /* the engine's, or NULL */
    void *pool;
} qmm_team;

/* The team for a call that could use up to want threads (want >= 1). */
qmm_team qmm_team_join(size_t want);

/* Runs task(context, t) for every t in [0, tasks) and returns when all are
 * done; tasks <= team->threads is what the team was sized for. */
void qmm_team_run(const qmm_team *team, size_t tasks, qmm_task_fn *task, void *context);

/* Keeps at most `threads` of the team's threads (a call split into fewer
 * tasks than it joined with), giving the others back to the budget. */
void qmm_team_shrink(qmm_team *team, size_t threads);

/* Gives the team's threads back to the budget. */
void qmm_team_leave(qmm_team *team);

/* The most OpenMP threads that ran qmm tasks at one time in this process:
 * what the tests compare with the thread count. */
size_t qmm_threads_peak(void);

#endif
