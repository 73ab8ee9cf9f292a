#include "test_pool.h"

#include <string.h>

/* Takes and runs tasks of the current job until none is left. */
static void drain(test_pool *p, int worker)
{
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->task == NULL || p->next == p->tasks) {
            pthread_mutex_unlock(&p->lock);
            return;
        }
        size_t t = p->next++;
        qmm_task_fn *task = p->task;
        void *context = p->context;
        pthread_mutex_unlock(&p->lock);
        task(context, t);
        atomic_fetch_add(&p->tasks_run, 1);
        if (worker)
            atomic_store(&p->ran_on_worker, 1);
        pthread_mutex_lock(&p->lock);
        if (++p->finished == p->tasks)
            pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->lock);
    }
}

static void *worker_main(void *arg)
{
    test_pool *p = arg;
    size_t seen = 0;
    if (p->on_start != NULL)
        p->on_start();
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        seen = p->generation;
        int stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            return NULL;
        drain(p, 1);
    }
}

int test_pool_start(test_pool *p, size_t workers, int caller_helps, void (*on_start)(void))
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->caller_helps = caller_helps;
    p->on_start = on_start;
    for (; p->workers < workers && p->workers < TEST_POOL_MAX_WORKERS; p->workers++)
        if (pthread_create(&p->tid[p->workers], NULL, worker_main, p) != 0)
            return 0;
    return p->workers == workers;
}

void test_pool_parallel_for(void *pool, size_t tasks, qmm_task_fn *task, void *context)
{
    test_pool *p = pool;
    atomic_fetch_add(&p->calls, 1);
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->context = context;
    p->tasks = tasks;
    p->next = p->finished = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->caller_helps)
        drain(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->finished != p->tasks)
        pthread_cond_wait(&p->done, &p->lock);
    p->task = NULL;
    pthread_mutex_unlock(&p->lock);
}

void test_pool_stop(test_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (size_t w = 0; w < p->workers; w++)
        pthread_join(p->tid[w], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
}
