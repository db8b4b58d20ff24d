/* pool.c - a fixed pool of threads for parallel loops (-j, docs/scale.md).
 *
 * The library never starts threads: it takes a cg_parallel_fn, and this is
 * the tool's. One loop runs at a time: the caller publishes the task, wakes
 * the workers and takes part itself; every thread claims indices from one
 * atomic counter until none is left, so a slow task never holds the others
 * up. Which thread runs which index changes from run to run; nothing the
 * tool writes depends on it (each task writes only its own map or rows).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cli.h"

struct cli_pool {
    pthread_t *threads;
    unsigned nthreads; /* started: the caller is the other one */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    /* The current loop, published under lock. */
    void (*task)(void *arg, size_t i);
    void *arg;
    size_t n;
    atomic_size_t next;
    unsigned busy;       /* workers still in the current loop */
    unsigned long round; /* bumped for every loop */
    int quit;
};

/* Claims and runs indices until none is left. */
static void run_tasks(cli_pool *pool, void (*task)(void *, size_t), void *arg, size_t n)
{
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
        if (i >= n)
            break;
        task(arg, i);
    }
}

static void *worker(void *p)
{
    cli_pool *pool = p;
    unsigned long seen = 0;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->quit && pool->round == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->quit)
            break;
        seen = pool->round;
        void (*task)(void *, size_t) = pool->task;
        void *arg = pool->arg;
        size_t n = pool->n;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, task, arg, n);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int cli_pool_new(cli_pool **out, unsigned threads)
{
    cli_pool *pool = calloc(1, sizeof *pool);
    int err = 0;

    *out = NULL;
    if (!pool)
        return ENOMEM;
    unsigned want = threads > 1 ? threads - 1 : 0;
    pool->threads = want ? calloc(want, sizeof *pool->threads) : NULL;
    if (want && !pool->threads) {
        free(pool);
        return ENOMEM;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_init(&pool->next, 0);

    /* Workers inherit the signal mask: only the main thread takes the
     * signals that end the process, whose handler may then assume the files it
     * cleans up are the main thread's (output.c). */
    sigset_t old;
    cli_block_signals(&old);
    for (unsigned i = 0; i < want; i++) {
        err = pthread_create(&pool->threads[i], NULL, worker, pool);
        if (err)
            break;
        pool->nthreads++;
    }
    cli_restore_signals(&old);
    if (err) {
        cli_pool_free(pool);
        return err;
    }
    *out = pool;
    return 0;
}

void cli_pool_free(cli_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->nthreads; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool);
}

void cli_pool_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    cli_pool *pool = ctx;

    if (n == 0)
        return;
    if (!pool || pool->nthreads == 0 || n == 1) {
        for (size_t i = 0; i < n; i++)
            task(arg, i);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->task = task;
    pool->arg = arg;
    pool->n = n;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->busy = pool->nthreads;
    pool->round++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_tasks(pool, task, arg, n);

    pthread_mutex_lock(&pool->lock);
    while (pool->busy > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
