/*
 * A small thread pool of the tests' own, the shape of an engine's pool handed
 * to qmm_set_parallel_for: workers take task numbers from a shared counter,
 * and parallel_for returns when every task is done.
 */
#ifndef QMM_TEST_POOL_H
#define QMM_TEST_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "qmm/qmm.h"

enum { TEST_POOL_MAX_WORKERS = 8 };

typedef struct test_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    qmm_task_fn *task;
    void *context;
    size_t tasks, next, finished, generation;
    int stop;
    int caller_helps;          /* the thread calling parallel_for runs tasks too */
    void (*on_start)(void);    /* run first on each worker; may be NULL */
    size_t workers;
    pthread_t tid[TEST_POOL_MAX_WORKERS];
    atomic_size_t calls, tasks_run;
    atomic_int ran_on_worker;
} test_pool;

/* Starts workers threads (at most TEST_POOL_MAX_WORKERS); 0 on failure. */
int test_pool_start(test_pool *p, size_t workers, int caller_helps, void (*on_start)(void));

/* A qmm_parallel_for_fn; pool is a started test_pool. */
void test_pool_parallel_for(void *pool, size_t tasks, qmm_task_fn *task, void *context);

/* Stops and joins the workers. */
void test_pool_stop(test_pool *p);

#endif
