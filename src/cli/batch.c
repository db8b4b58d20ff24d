/* batch.c - running the maps of a run and writing them in order: one map,
 * or a batch of N with -n (docs/cli.md, docs/scale.md).
 *
 * Map i of a run uses seed + i (mod 2^64), so it is the map a run of its
 * own with that seed makes, whatever else the batch holds. The maps go in
 * rounds: the main thread opens the round's outputs (temporary files beside
 * their targets), the pool's threads run the pipeline and encode each map
 * into its file or into a buffer, then the main thread, in map order,
 * renames the files over their targets, writes the buffers to stdout (a
 * blank line between maps), prints the --stats lines and moves the progress
 * bar. So the output is the same for any -j: only the order in which maps
 * are computed changes, never what or where anything is written.
 *
 * Small maps run side by side, one per thread, with no per-map threading.
 * A single map, or maps of HUGE_CELLS cells or more, run one at a time with
 * the threads splitting each map's passes into stripes of rows (the
 * library's cg_run_options.parallel); to stdout such a map, and every map
 * of a batch with one thread, is encoded straight into the stream instead
 * of a buffer.
 *
 * Interruption: the main thread alone creates, renames and removes the
 * temporary files, with the signals blocked meanwhile (output.c), and the
 * pool's threads never take the signals that end the process (but a fault,
 * which cannot be blocked). The handler, on the main thread, removes every
 * pending temporary file and lets the signal kill the process: every file
 * renamed before is complete, no temporary file is left, and the exit
 * status tells the shell about the signal (128 + N).
 */
#define _XOPEN_SOURCE 700 /* POSIX.1-2008 with XSI: realpath */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "messages.h"
#include "pattern.h"

#define MIB (UINT64_C(1) << 20)

/* Maps of at least this many cells run one at a time, split in stripes. */
#define HUGE_CELLS (UINT64_C(1) << 22)
/* Most maps in one round, and the stream bytes a round may buffer. */
#define ROUND_MAX 1024u
#define ROUND_BYTES (UINT64_C(1) << 24)
/* stdout's buffer for a stream of maps. */
#define STREAM_BUF ((size_t)1 << 18)

/* A growable byte buffer: a map's stream bytes. */
struct buf {
    char *data;
    size_t len, cap;
    int nomem;
};

static int buf_write(void *ctx, const void *data, size_t len)
{
    struct buf *b = ctx;
    if (len > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 1 << 14;
        while (cap - b->len < len) {
            if (cap > SIZE_MAX / 2) {
                b->nomem = 1;
                return 1;
            }
            cap *= 2;
        }
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->nomem = 1;
            return 1;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

/* A cg_write_fn into an open output's stream, recording errno. */
static int write_stream(void *ctx, const void *data, size_t len)
{
    struct cli_output *out = ctx;

    errno = 0;
    if (len > 0 && fwrite(data, 1, len, out->fp) != len) {
        out->err = errno ? errno : EIO;
        return 1;
    }
    return 0;
}

/* One map of a round. */
struct job {
    uint64_t index;
    char *path;            /* the output name (owned), NULL for stdout */
    struct cli_output out; /* its open file, when path is set */
    int opened;
    struct buf text; /* its bytes for stdout, unless written directly */
    cg_grid *map;    /* kept for --stats until they are computed */
    cg_run_info info;
    char stats[640];  /* its --stats line, or why they failed */
    int stats_failed; /* out of memory computing them */
    int failed;       /* msg says why (empty: nothing worth saying) */
    int skipped;      /* --keep-going: its requirements were not met; no output */
    char msg[768];
};

/* --keep-going: the maps skipped, the first of them listed at the end. */
#define SKIPPED_LISTED 100

struct batch {
    const struct cli_run *run;
    const struct cli_options *opt;
    cg_run_options scale; /* the parallel loop and chunk of every map's run */
    cg_write_options wopt;
    int batch;        /* -n was given: stats lines carry the index, messages the map */
    int stream;       /* the maps go to stdout */
    int direct;       /* ... straight from the encoder (one map at a time) */
    int tileset;      /* each map file gets the tileset image beside it (Tiled) */
    int side_by_side; /* maps run on the pool's threads, --stats with them */
    uint64_t written; /* maps written to stdout so far */
    uint64_t committed;                /* maps written, stdout or files */
    uint64_t nskipped;                 /* --keep-going */
    uint64_t skipped[SKIPPED_LISTED]; /* their indices, the first ones */
    struct job *jobs;
    size_t cap;
    /* The folders this run created for its names, in order of creation:
     * removed again, those left empty, if the batch fails. */
    char **made;
    size_t nmade, capmade;
    /* A name whose file this run created: its folder exists, so the next
     * names in the same folder skip make_parents (a batch's files mostly
     * share one). NULL before the first. */
    char *ready;
};

/* ----------------------------------------------------------- one map */

static void job_fail(const struct batch *b, struct job *job, const char *fmt, ...) CLI_PRINTF(3, 4);

static void job_fail(const struct batch *b, struct job *job, const char *fmt, ...)
{
    va_list ap;
    int n = 0;

    job->failed = 1;
    if (b->batch)
        n = snprintf(job->msg, sizeof job->msg, "map %" PRIu64 " (seed %" PRIu64 "): ", job->index,
                     b->run->seed + job->index);
    else if (b->run->seed_unannounced)
        n = snprintf(job->msg, sizeof job->msg, "seed %" PRIu64 ": ", b->run->seed);
    if (n < 0 || (size_t)n >= sizeof job->msg)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(job->msg + n, sizeof job->msg - (size_t)n, fmt, ap);
    va_end(ap);
}

/* --stats (docs/cli.md): the floor share in tenths of a percent, rounded
 * down, from integers, so the same map prints the same line everywhere.
 * Seeds are strings in JSON: they exceed the 2^53 JSON readers hold
 * exactly. A batch's lines start with the map's index. */
static void format_stats(const struct batch *b, struct job *job)
{
    const cg_run_info *info = &job->info;
    uint64_t seed = b->run->seed + job->index;
    cg_stats s;
    char index[40] = "";

    cg_diag diag = {0};

    cg_stats_options so = {.max_memory = b->wopt.max_memory};
    cg_status st = cg_grid_stats(job->map, &so, &s, &diag);
    cg_grid_free(job->map);
    job->map = NULL;
    if (st != CG_OK) {
        job->stats_failed = 1;
        snprintf(job->stats, sizeof job->stats, "%s",
                 diag.message[0] ? diag.message : "out of memory computing the map's statistics");
        return;
    }
    /* The keys and values of the JSON map's "stats" (docs/formats.md), so
     * both say the same; then how the map was made. No seed (a map read
     * with -i and no random step): null, and "none" in text. */
    const struct cli_run *run = b->run;
    uint64_t permille = s.floor * 1000 / ((uint64_t)s.width * s.height);
    char seeds[96];
    if (b->opt->stats == CLI_STATS_JSON) {
        if (b->batch)
            snprintf(index, sizeof index, "\"index\":%" PRIu64 ",", job->index);
        if (run->has_seed)
            snprintf(seeds, sizeof seeds, "\"seed\":\"%" PRIu64 "\",\"run_seed\":\"%" PRIu64 "\"",
                     seed, info->seed);
        else
            snprintf(seeds, sizeof seeds, "\"seed\":null,\"run_seed\":null");
        snprintf(job->stats, sizeof job->stats,
                 "{%s\"width\":%" PRIu32 ",\"height\":%" PRIu32 ",\"floor\":%" PRIu64
                 ",\"floor_permille\":%" PRIu64 ",\"regions\":%" PRIu64
                 ",\"largest_region\":%" PRIu64 ",\"dead_ends\":%" PRIu64 ",\"points\":%" PRIu64
                 ",\"path_length\":%" PRId64 ",\"attempts\":%" PRIu32 ",%s}\n",
                 index, s.width, s.height, s.floor, permille, s.regions, s.largest_region,
                 s.dead_ends, s.points, s.path_length, info->attempts, seeds);
    } else {
        if (b->batch)
            snprintf(index, sizeof index, "index=%" PRIu64 " ", job->index);
        if (run->has_seed)
            snprintf(seeds, sizeof seeds, "seed=%" PRIu64 " run_seed=%" PRIu64, seed, info->seed);
        else
            snprintf(seeds, sizeof seeds, "seed=none run_seed=none");
        snprintf(job->stats, sizeof job->stats,
                 "%swidth=%" PRIu32 " height=%" PRIu32 " floor=%" PRIu64 " floor_permille=%" PRIu64
                 " regions=%" PRIu64 " largest_region=%" PRIu64 " dead_ends=%" PRIu64
                 " points=%" PRIu64 " path_length=%" PRId64 " attempts=%" PRIu32 " %s\n",
                 index, s.width, s.height, s.floor, permille, s.regions, s.largest_region,
                 s.dead_ends, s.points, s.path_length, info->attempts, seeds);
    }
}

/* The reason a write failed: errno if the sink failed, else the library's. */
static void write_error(const struct batch *b, struct job *job, int err, cg_status st,
                        const cg_diag *diag)
{
    const char *why = err ? strerror(err) : diag->message[0] ? diag->message : cg_strerror(st);
    if (job->path)
        job_fail(b, job, "cannot write '%s': %s", job->path, why);
    else if (err == EPIPE)
        job->failed = 1; /* the reader left: not worth a message */
    else
        job_fail(b, job, "cannot write to standard output: %s", why);
}

static void size_message(const struct batch *b, struct job *job, uint32_t w, uint32_t h)
{
    uint64_t bytes = 0;
    if (cg_grid_bytes(w, h, &bytes) == CG_OK)
        job_fail(b, job, "out of memory for a %" PRIu32 "x%" PRIu32 " map (%" PRIu64 " MiB)", w, h,
                 (bytes + MIB - 1) / MIB);
    else
        job_fail(b, job, "out of memory for a %" PRIu32 "x%" PRIu32 " map", w, h);
}

/* Runs map job->index and writes it where the job says. Runs on any
 * thread; touches nothing but the job (and stdout when direct, which then
 * only this thread writes). */
static void run_map(struct batch *b, struct job *job)
{
    const struct cli_run *run = b->run;
    uint64_t seed = run->seed + job->index; /* wraps mod 2^64: docs/cli.md */
    cg_run_options ro = b->scale;
    ro.seed = seed;
    ro.width = run->width;
    ro.height = run->height;
    ro.input = run->input;
    ro.max_attempts = b->opt->max_attempts;
    ro.max_memory = run->map_memory;
    cg_grid *map = NULL;
    cg_run_info info = {.seed = seed};
    cg_diag diag = {0};

    cg_status st = cg_pipeline_run(run->pipeline, &ro, &map, &info, &diag);
    if (st == CG_EFAIL && b->opt->keep_going) {
        job->skipped = job->failed = 1;
        return;
    }
    if (st != CG_OK) {
        if (st == CG_ENOMEM && info.over_budget)
            job_fail(b, job, "%s (--max-memory)", diag.message);
        else if (st == CG_ENOMEM)
            size_message(b, job, run->width, run->height);
        else
            job_fail(b, job, "%s", diag.message[0] ? diag.message : cg_strerror(st));
        return;
    }
    cg_map_info minfo = {.has_seed = run->has_seed,
                         .seed = seed,
                         .run_seed = info.seed,
                         .attempts = info.attempts,
                         .preset_name = run->preset_name,
                         .preset_text = run->preset_text,
                         .preset_text_len = run->preset_text_len};
    cg_write_options wopt = b->wopt;
    wopt.info = &minfo;
    int err = 0;
    if (job->path) {
        /* Flushed and on its way to the disk here; synced and closed when
         * the round is committed (commit_round). */
        st = cg_write(map, &wopt, write_stream, &job->out, &diag);
        err = st == CG_EIO ? job->out.err : 0;
        if (st == CG_OK && cli_output_flush(&job->out) != 0) {
            st = CG_EIO;
            err = job->out.err;
        }
    } else if (b->direct) {
        struct cli_output out = {.fp = stdout, .slot = -1};
        /* The maps of a stream are a blank line apart (docs/cli.md). */
        if (b->written > 0 && write_stream(&out, "\n", 1) != 0)
            st = CG_EIO;
        if (st == CG_OK)
            st = cg_write(map, &wopt, write_stream, &out, &diag);
        err = st == CG_EIO ? out.err : 0;
    } else {
        job->text.len = 0;
        st = cg_write(map, &wopt, buf_write, &job->text, &diag);
        if (st == CG_EIO && job->text.nomem) {
            job->text.nomem = 0;
            st = CG_ENOMEM;
            snprintf(diag.message, sizeof diag.message,
                     "out of memory writing a %" PRIu32 "x%" PRIu32 " map", cg_grid_width(map),
                     cg_grid_height(map));
        }
    }
    if (st == CG_ENOMEM)
        job_fail(b, job, "%s", diag.message);
    else if (st != CG_OK)
        write_error(b, job, err, st, &diag);
    if (st != CG_OK || b->opt->stats == CLI_STATS_NONE) {
        cg_grid_free(map);
        return;
    }
    /* --stats describe the written map: computed here when the maps run
     * side by side, else once the map is committed (docs/cli.md). */
    job->map = map;
    job->info = info;
    if (b->side_by_side)
        format_stats(b, job);
}

static void map_task(void *arg, size_t k)
{
    struct batch *b = arg;
    run_map(b, &b->jobs[k]);
}

/* ------------------------------------------------------------ outputs */

/* Remembers a folder the run created; 0, or -1 when out of memory. */
static int note_made(struct batch *b, const char *dir)
{
    if (b->nmade == b->capmade) {
        size_t cap = b->capmade ? 2 * b->capmade : 16;
        char **grown =
            cap <= SIZE_MAX / sizeof *grown ? realloc(b->made, cap * sizeof *grown) : NULL;
        if (!grown)
            return -1;
        b->made = grown;
        b->capmade = cap;
    }
    size_t n = strlen(dir) + 1;
    if (!(b->made[b->nmade] = malloc(n)))
        return -1;
    memcpy(b->made[b->nmade++], dir, n);
    return 0;
}

/* Creates the missing folders of path, as mkdir -p would: a batch's
 * pattern may name a folder per map. Failures are left to the open. */
static int make_parents(struct batch *b, const char *path)
{
    size_t n = strlen(path);
    char *copy = malloc(n + 1);
    int rc = 0;
    if (!copy)
        return -1;
    memcpy(copy, path, n + 1);
    for (char *p = copy + 1; *p && rc == 0; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = '\0';
        /* EEXIST and the rest: the open reports what matters. */
        if (mkdir(copy, 0777) == 0)
            rc = note_made(b, copy);
        *p = '/';
    }
    free(copy);
    return rc;
}

/* After a failed batch: removes the folders it created that hold nothing
 * (the maps already written keep theirs), the deepest first. */
static void remove_made(struct batch *b)
{
    while (b->nmade > 0) {
        char *dir = b->made[--b->nmade];
        rmdir(dir); /* ENOTEMPTY: it holds maps, or someone else's files */
        free(dir);
    }
}

/* A Tiled map written to a file references the tileset image
 * CG_TILESET_IMAGE beside it (docs/formats.md): write it there, atomically,
 * unless a file of that name exists - the image is the same for every map,
 * so a batch writes it once, and one a user has redrawn is kept. A map
 * written to a device or a pipe has no folder to put it in. */
static int write_tileset(const char *map_path)
{
    struct stat st;
    struct cli_output out;
    cg_diag diag = {0};

    if (stat(map_path, &st) != 0 || !S_ISREG(st.st_mode))
        return CLI_EXIT_OK;
    /* A map reached through a symbolic link references the image beside
     * the file the link points to, where the map is. */
    char *real = NULL;
    if (lstat(map_path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(map_path, NULL)))
        map_path = real;
    const char *slash = strrchr(map_path, '/');
    size_t dirlen = slash ? (size_t)(slash - map_path) + 1 : 0;
    char *path = malloc(dirlen + sizeof CG_TILESET_IMAGE);
    if (!path) {
        free(real);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    memcpy(path, map_path, dirlen);
    memcpy(path + dirlen, CG_TILESET_IMAGE, sizeof CG_TILESET_IMAGE);
    free(real);

    int rc = CLI_EXIT_OK;
    if (lstat(path, &st) != 0 && (rc = cli_output_open(&out, path)) == CLI_EXIT_OK) {
        cg_status s = cg_write_tileset_image(write_stream, &out, &diag);
        if (s == CG_OK) {
            rc = cli_output_commit(&out);
        } else {
            const char *why = s == CG_EIO && out.err ? strerror(out.err)
                              : diag.message[0]      ? diag.message
                                                     : cg_strerror(s);
            cli_output_abort(&out);
            cli_error("cannot write '%s': %s", path, why);
            rc = CLI_EXIT_FAILURE;
        }
    }
    free(path);
    return rc;
}

/* Writes a buffered map to stdout, a blank line after the previous one. */
static int stream_out(struct batch *b, const struct buf *text)
{
    errno = 0;
    if ((b->written > 0 && fputc('\n', stdout) == EOF) ||
        (text->len > 0 && fwrite(text->data, 1, text->len, stdout) != text->len)) {
        int err = errno ? errno : EIO;
        if (err != EPIPE)
            cli_error("cannot write to standard output: %s", strerror(err));
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* Pushes what stdout buffers to the stream, so that a --stats line is
 * printed only for a map that reached it (docs/cli.md). */
static int flush_stream(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return CLI_EXIT_OK;
    int err = errno ? errno : EIO;
    if (err != EPIPE)
        cli_error("cannot write to standard output: %s", strerror(err));
    return CLI_EXIT_FAILURE;
}

/* --------------------------------------------------------------- sizes */

static uint64_t map_cells(const struct cli_run *run)
{
    if (run->input)
        return (uint64_t)cg_grid_width(run->input) * cg_grid_height(run->input);
    return (uint64_t)run->width * run->height;
}

/* One map, or huge maps: one at a time, each split in stripes among the
 * threads (when there are several). */
static int split_maps(const struct cli_run *run)
{
    uint64_t count = run->opt->count ? run->opt->count : 1;
    return count == 1 || map_cells(run) >= HUGE_CELLS;
}

/* Maps run one at a time on the main thread rather than side by side. */
static int one_at_a_time(const struct cli_run *run)
{
    return split_maps(run) || run->threads == 1;
}

/* A rough size of one map's text, with room for its buffer's growth
 * (distances lines are longer). */
static uint64_t text_bytes(const struct cli_run *run)
{
    return map_cells(run) * (run->opt->format == CG_FORMAT_DISTANCES ? 16 : 2) + 4096;
}

/* The maps of a round to stdout are buffered until written in order:
 * except one map at a time, which goes straight into the stream. */
static int buffered_stream(const struct cli_run *run)
{
    return run->opt->output == NULL && !split_maps(run);
}

cg_status cli_batch_memory(const struct cli_run *run, uint64_t *per_map, unsigned *at_once)
{
    cg_run_options ro = {.seed = run->seed,
                         .width = run->width,
                         .height = run->height,
                         .input = run->input,
                         .max_attempts = run->opt->max_attempts,
                         .chunk = run->opt->have_chunk};
    uint64_t bytes = 0, grid = 0;

    cg_status st = cg_pipeline_memory(run->pipeline, &ro, &bytes);
    if (st != CG_OK)
        return st;
    /* --stats labels the finished map: about one grid more. */
    if (run->opt->stats != CLI_STATS_NONE &&
        cg_grid_bytes(run->width ? run->width : 1, run->height ? run->height : 1, &grid) == CG_OK &&
        bytes <= UINT64_MAX - grid)
        bytes += grid;
    /* Each map in flight holds its text until its turn comes (a round
     * holds more only of maps small enough for ROUND_BYTES). */
    if (buffered_stream(run) && bytes <= UINT64_MAX - text_bytes(run))
        bytes += text_bytes(run);
    uint64_t count = run->opt->count ? run->opt->count : 1;
    *per_map = bytes;
    *at_once = one_at_a_time(run) ? 1 : count < run->threads ? (unsigned)count : run->threads;
    return CG_OK;
}

/* Maps per round: enough to keep the threads busy and the sync cost small,
 * few enough that the buffered stream stays small and the files in flight
 * fit the temporary-file slots. */
static size_t round_size(const struct batch *b)
{
    const struct cli_run *run = b->run;
    uint64_t count = b->opt->count ? b->opt->count : 1;
    uint64_t n;
    /* One thread and one stream: each map is encoded straight into
     * stdout's buffer as it is made, in order, with nothing to hold back. */
    if (split_maps(run) || (b->stream && one_at_a_time(run)))
        return 1;
    if (!b->stream) {
        /* Files: a folder is synced once a round. */
        n = (uint64_t)run->threads * 4;
        if (n < 16)
            n = 16;
        if (n > CLI_MAX_TEMPS)
            n = CLI_MAX_TEMPS;
    } else {
        /* At least a map per thread; the budget counts their texts
         * (cli_batch_memory). */
        n = ROUND_BYTES / text_bytes(run);
        if (n < run->threads)
            n = run->threads;
        if (n > ROUND_MAX)
            n = ROUND_MAX;
    }
    return (size_t)(n < count ? n : count);
}

/* ---------------------------------------------------------------- run */

/* Opens the outputs of jobs 0..k-1; returns how many opened (all: k). */
static size_t open_round(struct batch *b, size_t k, uint64_t first)
{
    const char *pattern = b->opt->output;
    for (size_t j = 0; j < k; j++) {
        struct job *job = &b->jobs[j];
        job->index = first + j;
        job->failed = job->stats_failed = job->skipped = 0;
        job->msg[0] = job->stats[0] = '\0';
        job->opened = 0;
        free(job->path);
        job->path = NULL;
        cg_grid_free(job->map);
        job->map = NULL;
        if (b->stream)
            continue;
        job->path =
            b->batch ? cli_pattern_format(pattern, job->index) : malloc(strlen(pattern) + 1);
        if (!job->path) {
            cli_error("out of memory");
            return j;
        }
        if (!b->batch) {
            strcpy(job->path, pattern);
        } else if ((!b->ready || !cli_same_folder(b->ready, job->path)) &&
                   make_parents(b, job->path) != 0) {
            cli_error("out of memory");
            return j;
        }
        if (cli_output_open(&job->out, job->path) != CLI_EXIT_OK)
            return j;
        job->opened = 1;
        if (b->batch && (!b->ready || !cli_same_folder(b->ready, job->path))) {
            /* Not kept when out of memory: the folders are then made again. */
            free(b->ready);
            b->ready = malloc(strlen(job->path) + 1);
            if (b->ready)
                strcpy(b->ready, job->path);
        }
    }
    return k;
}

static void abort_round(struct batch *b, size_t from, size_t k)
{
    for (size_t j = from; j < k; j++) {
        if (b->jobs[j].opened) {
            cli_output_abort(&b->jobs[j].out);
            b->jobs[j].opened = 0;
        }
        cg_grid_free(b->jobs[j].map);
        b->jobs[j].map = NULL;
    }
}

/* The files of a round, up to its first failed map, made durable at once
 * (cli_output_sync_all) before they are closed and renamed in order. */
static void sync_round(struct batch *b, size_t k)
{
    struct cli_output *outs[CLI_MAX_TEMPS];
    size_t n = 0;

    for (size_t j = 0; j < k && !b->jobs[j].failed && n < CLI_MAX_TEMPS; j++) {
        struct job *job = &b->jobs[j];
        if (job->path && job->opened && !job->skipped)
            outs[n++] = &job->out;
    }
    cli_output_sync_all(outs, n);
}

/* Job j of a round of k failed: says why and drops the round's maps from j
 * on. */
static int fail_round(struct batch *b, size_t j, size_t k, struct cli_progress *progress)
{
    cli_progress_clear(progress);
    if (b->jobs[j].msg[0])
        cli_error("%s", b->jobs[j].msg);
    abort_round(b, j, k);
    return CLI_EXIT_FAILURE;
}

/* Publishes jobs 0..k-1 in order; returns an exit status (stop on failure). */
static int commit_round(struct batch *b, size_t k, struct cli_progress *progress, uint64_t *done)
{
    const struct cli_options *opt = b->opt;
    const char *unsynced = NULL; /* a file renamed, its folder not yet synced */
    int rc = CLI_EXIT_OK;

    if (opt->stats != CLI_STATS_NONE)
        cli_progress_clear(progress);
    sync_round(b, k);
    /* A round of several small files is renamed under one block of the
     * signals (output.c); a single map's close may take long (its fsync),
     * and keeps the block to its rename. */
    if (k > 1 && !b->stream)
        cli_output_hold_signals();
    for (size_t j = 0; j < k && rc == CLI_EXIT_OK; j++) {
        struct job *job = &b->jobs[j];
        if (job->skipped) {
            if (job->opened) {
                cli_output_abort(&job->out);
                job->opened = 0;
            }
            if (b->nskipped < SKIPPED_LISTED)
                b->skipped[b->nskipped] = job->index;
            b->nskipped++;
            ++*done;
            /* With --stats its line says so, in map order (the summary at
             * the end would break a stream of JSON lines). */
            uint64_t seed = b->run->seed + job->index;
            if (opt->stats == CLI_STATS_JSON)
                fprintf(stderr, "{\"index\":%" PRIu64 ",\"skipped\":true,\"seed\":\"%" PRIu64 "\"}\n",
                        job->index, seed);
            else if (opt->stats == CLI_STATS_TEXT)
                fprintf(stderr, "index=%" PRIu64 " skipped seed=%" PRIu64 "\n", job->index, seed);
            continue;
        }
        if (job->failed) {
            rc = fail_round(b, j, k, progress);
            break;
        }
        if (job->path) {
            /* The files of a round were flushed and their writeback started
             * as they were made, then synced together (sync_round); each is
             * closed now, in order, before its rename (and fsync'ed first
             * if that sync could not cover it). */
            if (cli_output_close(&job->out) != 0) {
                cg_diag none = {0};
                write_error(b, job, job->out.err, CG_EIO, &none);
                rc = fail_round(b, j, k, progress);
                break;
            }
            /* A batch syncs each folder once a round (below), not once a
             * file: the files themselves are synced before their rename. */
            job->out.no_dir_sync = b->batch;
            if (unsynced && !cli_same_folder(unsynced, job->path)) {
                cli_sync_directory(unsynced);
                unsynced = NULL;
            }
            rc = cli_output_commit(&job->out);
            job->opened = 0;
            if (rc == CLI_EXIT_OK && b->batch)
                unsynced = job->path;
            if (rc == CLI_EXIT_OK && b->tileset)
                rc = write_tileset(job->path);
        } else if (!b->direct) {
            rc = stream_out(b, &job->text);
        }
        if (!job->path)
            b->written++;
        if (rc == CLI_EXIT_OK && !job->path && opt->stats != CLI_STATS_NONE)
            rc = flush_stream();
        if (rc == CLI_EXIT_OK && job->map)
            format_stats(b, job);
        if (rc == CLI_EXIT_OK && opt->stats != CLI_STATS_NONE) {
            if (job->stats_failed) {
                cli_error("%s", job->stats);
                rc = CLI_EXIT_FAILURE;
            } else {
                fputs(job->stats, stderr);
            }
        }
        if (rc != CLI_EXIT_OK) {
            abort_round(b, j + 1, k);
            break;
        }
        b->committed++;
        ++*done;
    }
    cli_output_release_signals();
    if (unsynced)
        cli_sync_directory(unsynced);
    if (rc == CLI_EXIT_OK)
        cli_progress_update(progress, *done);
    return rc;
}

/* --keep-going, at the end: how many maps were skipped and which (index
 * and seed: `-s SEED` reproduces the failure); a failure if none was
 * written. */
static int report_skipped(const struct batch *b, uint64_t count)
{
    char list[2048];
    size_t len = 0;
    uint64_t listed = b->nskipped < SKIPPED_LISTED ? b->nskipped : SKIPPED_LISTED;
    list[0] = '\0';
    for (uint64_t i = 0; i < listed && len < sizeof list - 64; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%" PRIu64 " (seed %" PRIu64 ")",
                                i ? ", " : "", b->skipped[i], b->run->seed + b->skipped[i]);
    if (listed < b->nskipped || len >= sizeof list - 64)
        snprintf(list + len, sizeof list - len, ", ...");
    if (b->committed == 0) {
        cli_error("every map failed its requirements (%" PRIu64 " of %" PRIu64 " skipped: %s)",
                  b->nskipped, count, list);
        return CLI_EXIT_FAILURE;
    }
    if (!b->opt->quiet && b->opt->stats == CLI_STATS_NONE)
        cli_error("skipped %" PRIu64 " of %" PRIu64
                  " maps whose requirements were not met (map index and seed): %s",
                  b->nskipped, count, list);
    return CLI_EXIT_OK;
}

/* The names of a batch are made round by round; what can fail in any of
 * them is checked before the first map: the longest, the last map's, must
 * have no folder or file name over NAME_MAX and fit in PATH_MAX (the
 * folders may not exist yet, so the limits are the system's). */
static int check_names(const struct batch *b, uint64_t count)
{
    char *last = cli_pattern_format(b->opt->output, count - 1);
    if (!last) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    int err = cli_name_check(last);
    if (err)
        cli_error("cannot write '%s': %s", last, strerror(err));
    free(last);
    return err ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cli_batch_run(const struct cli_run *run)
{
    const struct cli_options *opt = run->opt;
    struct batch b;
    cli_pool *pool = NULL;
    struct cli_progress progress;
    uint64_t count = opt->count ? opt->count : 1, done = 0;
    int rc = CLI_EXIT_OK;

    memset(&b, 0, sizeof b);
    b.run = run;
    b.opt = opt;
    b.batch = opt->count != 0;
    cg_format_info finfo;
    b.tileset = cg_format_describe(opt->format, &finfo) == CG_OK && finfo.tileset;
    b.stream = opt->output == NULL;
    /* Writing and --stats run after the map is made, while it is held: the
     * rest of the map's share of the budget is theirs. */
    uint64_t map_bytes = 0;
    if (run->map_memory && cg_grid_bytes(run->width, run->height, &map_bytes) != CG_OK)
        map_bytes = 0;
    b.wopt =
        (cg_write_options){.format = opt->format,
                           .scale = opt->scale,
                           .columns = opt->columns,
                           .max_memory = !run->map_memory              ? 0
                                         : run->map_memory > map_bytes ? run->map_memory - map_bytes
                                                                       : 1};
    if (opt->have_chunk) {
        /* --chunk CX,CY is the window at (CX*W, CY*H): |CX| < 2^31 and
         * W <= 2^20, so the product fits. */
        b.scale.chunk = 1;
        b.scale.origin_x = opt->chunk_x * (int64_t)run->width;
        b.scale.origin_y = opt->chunk_y * (int64_t)run->height;
    }
    if (b.batch && !b.stream && check_names(&b, count) != CLI_EXIT_OK)
        return CLI_EXIT_FAILURE;
    if (run->threads > 1) {
        int err = cli_pool_new(&pool, run->threads);
        if (err) {
            cli_error("cannot start %u threads: %s", run->threads, strerror(err));
            return CLI_EXIT_FAILURE;
        }
    }
    if (split_maps(run)) {
        /* One map at a time: its rows and its PNG stripes on every thread. */
        b.scale.parallel = pool ? cli_pool_for : NULL;
        b.scale.parallel_ctx = pool;
        b.wopt.parallel = b.scale.parallel;
        b.wopt.parallel_ctx = b.scale.parallel_ctx;
    }
    b.side_by_side = !one_at_a_time(run);
    b.cap = round_size(&b);
    /* A round of one map on stdout is encoded straight into the stream. */
    b.direct = b.stream && b.cap == 1;
    b.jobs = calloc(b.cap, sizeof *b.jobs);
    if (!b.jobs) {
        cli_pool_free(pool);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    cli_progress_start(&progress, count, b.batch && !opt->quiet && isatty(STDERR_FILENO));
    /* A stream of many small maps: fewer, larger writes. glibc ignores the
     * size of a buffer it is to allocate itself (it takes the file's block
     * size, 4 KiB: a write a map), so the buffer is ours; it lives until
     * exit, which may flush it after a failure. */
    if (b.stream && count > 1) {
        static char *stream_buf;
        if (!stream_buf)
            stream_buf = malloc(STREAM_BUF);
        if (stream_buf)
            setvbuf(stdout, stream_buf, _IOFBF, STREAM_BUF);
    }

    /* This thread alone writes stdout (the pool's threads write files or
     * buffers): holding its lock for the batch spares each map's writes an
     * atomic lock and unlock (about 2 % of a batch of small maps). */
    if (b.stream)
        flockfile(stdout);
    for (uint64_t first = 0; first < count && rc == CLI_EXIT_OK; first += b.cap) {
        size_t k = count - first < b.cap ? (size_t)(count - first) : b.cap;
        /* The round's temporary files are created under one block of the
         * signals, not one each (output.c); a stream creates none. */
        if (!b.stream)
            cli_output_hold_signals();
        size_t opened = open_round(&b, k, first);
        cli_output_release_signals();
        if (opened < k)
            rc = CLI_EXIT_FAILURE; /* said why; the maps before it still go out */
        if (one_at_a_time(run) || !pool) {
            for (size_t j = 0; j < opened; j++)
                run_map(&b, &b.jobs[j]);
        } else {
            cli_pool_for(pool, opened, map_task, &b);
        }
        int crc = commit_round(&b, opened, &progress, &done);
        if (rc == CLI_EXIT_OK)
            rc = crc;
    }
    if (b.stream)
        funlockfile(stdout);
    cli_progress_stop(&progress);
    if (b.nskipped && report_skipped(&b, count) != CLI_EXIT_OK && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_FAILURE;
    /* After a failure, said already, stdout is left to exit(). */
    if (b.stream && rc == CLI_EXIT_OK)
        rc = cli_close_stdout();
    for (size_t j = 0; j < b.cap; j++) {
        if (b.jobs[j].opened)
            cli_output_abort(&b.jobs[j].out);
        free(b.jobs[j].path);
        free(b.jobs[j].text.data);
        cg_grid_free(b.jobs[j].map);
    }
    free(b.jobs);
    cli_pool_free(pool);
    if (rc != CLI_EXIT_OK || b.nskipped)
        remove_made(&b); /* those left empty: a skipped map's folder too */
    for (size_t j = 0; j < b.nmade; j++)
        free(b.made[j]);
    free(b.made);
    free(b.ready);
    return rc;
}
