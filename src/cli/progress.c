/* progress.c - the progress bar of a batch on stderr, drawn only when
 * stderr is a terminal (docs/cli.md).
 *
 *   [##########..........]  52%  5200/10000 maps  48120 maps/s  ETA 0:00:01
 *
 * Drawn in place with a carriage return, at most ten times a second, and
 * erased before any other line goes to stderr and at the end, so a terminal
 * is left with only the messages and --stats lines. The clock only paces
 * the bar: no map depends on it.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "messages.h"

#define BAR_WIDTH 20

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void clear_hook(void *ctx)
{
    cli_progress_clear(ctx);
}

void cli_progress_start(struct cli_progress *p, uint64_t total, int enabled)
{
    p->enabled = enabled && total > 0;
    p->drawn = 0;
    p->total = total;
    p->start = p->last = p->enabled ? now() : 0;
    /* Any message, wherever it comes from, erases the bar first. */
    if (p->enabled)
        cli_set_message_hook(clear_hook, p);
}

void cli_progress_stop(struct cli_progress *p)
{
    cli_progress_clear(p);
    if (p->enabled)
        cli_set_message_hook(NULL, NULL);
}

static void draw(struct cli_progress *p, uint64_t done, double t)
{
    char bar[BAR_WIDTH + 1];
    unsigned filled = (unsigned)(done * BAR_WIDTH / p->total);
    for (unsigned i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    double elapsed = t - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    fprintf(stderr, "\r[%s] %3u%%  %" PRIu64 "/%" PRIu64 " maps", bar,
            (unsigned)(done * 100 / p->total), done, p->total);
    if (rate > 0) {
        double left = (double)(p->total - done) / rate;
        unsigned long s = left < 1e9 ? (unsigned long)(left + 0.5) : 999999999ul;
        fprintf(stderr, "  %.0f maps/s  ETA %lu:%02lu:%02lu", rate, s / 3600, s / 60 % 60, s % 60);
    }
    fputs("\033[K", stderr); /* erase what a longer line left */
    fflush(stderr);
    p->drawn = 1;
}

void cli_progress_update(struct cli_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    double t = now();
    if (done < p->total && t - p->last < 0.1 && p->drawn)
        return;
    p->last = t;
    draw(p, done, t);
}

void cli_progress_clear(struct cli_progress *p)
{
    if (!p->enabled || !p->drawn)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = 0;
}
