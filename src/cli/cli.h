/* cli.h - declarations shared by the files of the cavegen command-line tool.
 *
 * The tool is a thin client of the public API (cavegen/cavegen.h only):
 * options.c turns argv into a struct cli_options (with numbers.c,
 * step_options.c, output_options.c, preset_lookup.c and pattern.c, each
 * with its own header), output.c writes a map to a file atomically or to
 * stdout, main.c runs the flow, batch.c runs the maps of a run (one, or a
 * batch with -n) in order on a pool of threads (pool.c), with a progress
 * bar (progress.c). The messages and exit statuses are messages.h's, which
 * depends on nothing else of the tool; the --help text is help.c's.
 */
#ifndef CAVEGEN_CLI_H
#define CAVEGEN_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cavegen/cavegen.h"

/* -------------------------------------------------------------- options */

/* The command line's own defaults and limits (the library's are in
 * cavegen.h). */
#define CLI_JOBS_MAX 1024u   /* -j */

enum cli_action {
    CLI_RUN = 0,
    CLI_HELP,
    CLI_VERSION,
    CLI_LIST_PRESETS,
    CLI_LIST_FORMATS,
    CLI_SHOW_PRESET
};

/* --stats: none, one line of key=value, or one JSON object. */
enum cli_stats { CLI_STATS_NONE = 0, CLI_STATS_TEXT, CLI_STATS_JSON };

/* One step-appending option, kept in command-line order (step_options.h). */
struct cli_step {
    const char *option; /* "--step", "--fill", "--generations" or "--reach" */
    const char *arg;    /* the value as the user typed it (points into argv) */
    char *line;         /* the preset-language line it appends (owned) */
    /* The library's diagnostics from this column of line on are about
     * another option's value (--moves in the reach step); 0: none. */
    int tail_column;
    const char *tail_option, *tail_arg;
};

struct cli_options {
    enum cli_action action;

    /* --preset: at most one of these is set. */
    const char *preset_name;    /* the name or path as given */
    const char *preset_builtin; /* text of a built-in preset (static) */
    size_t preset_builtin_len;
    const char *preset_file; /* a preset file to read */

    int have_seed;
    uint64_t seed;

    uint32_t width, height;  /* 0 = not given (the pipeline's default size) */
    const char *size_option; /* first of -W/-H/--size given, for messages */

    const char *input;  /* -i FILE, "-" = stdin, NULL = none */
    const char *output; /* -o FILE, NULL = stdout ("-" is stored as NULL) */
    cg_format format;   /* resolved from -f, else the output's extension */
    uint32_t scale;     /* PNG pixels per cell, 1..64 */
    uint32_t columns;   /* ANSI: the widest picture in characters; 0: no limit */
    int preview;        /* --preview: the ANSI picture on stdout, even on a pipe */
    int quiet;
    enum cli_stats stats;  /* --stats[=FORMAT] */
    uint32_t max_attempts; /* --max-attempts; 0 = the library's default */
    int keep_going;        /* --keep-going: skip a map whose requirements fail */
    uint64_t max_memory;   /* --max-memory in bytes; 0 = cli_memory_available() */

    /* --reach X,Y|entrance (repeatable) and --moves M: one `reach` step,
     * appended after every other step. It analyses the map rather than
     * describing one, so it does not stop the default type2 pipeline. */
    char *reach_from;  /* "X,Y;entrance;..." (owned), NULL without --reach */
    const char *moves; /* --moves as given, NULL for no budget */
    int has_reach;     /* the last of steps[] is the reach step */

    const char *show_name; /* --show-preset NAME */

    /* Scale (docs/scale.md). */
    uint64_t count; /* -n: maps in the batch, seeds seed..seed+count-1; 0 = not given */
    uint32_t jobs;  /* -j: threads; 0 = one per core; default 1 */
    int have_chunk; /* --chunk CX,CY: the window (CX*W, CY*H) of the infinite cave */
    int64_t chunk_x, chunk_y;

    struct cli_step *steps;
    size_t nsteps, capsteps;

    /* -D NAME=VALUE / --set: the preset's values changed (cg_preset_apply),
     * pointers into argv in command-line order. */
    const char **settings;
    size_t nsettings, capsettings;
};

/* Parses argv into *opt (zeroed first) and checks everything that does not
 * need a file: numbers, preset names, step syntax, conflicts (options.c;
 * the values whose ranges the library owns are checked by the library:
 * step_options.h, output_options.h). Returns
 * CLI_EXIT_OK, or CLI_EXIT_USAGE / CLI_EXIT_FAILURE after printing why.
 * Call cli_options_free afterwards in every case. */
int cli_parse_options(struct cli_options *opt, int argc, char **argv);
void cli_options_free(struct cli_options *opt);

/* ---------------------------------------------------------------- pool */

/* A fixed pool of threads running parallel loops, shared by the maps of a
 * batch and the stripes of one big map. The threads block the signals that
 * end the process: only the main thread takes them (output.c). */
typedef struct cli_pool cli_pool;

/* threads counts the caller: threads - 1 are started. Returns 0 or an
 * errno value. */
int cli_pool_new(cli_pool **out, unsigned threads);
void cli_pool_free(cli_pool *pool);

/* A cg_parallel_fn over the pool (ctx): task(arg, i) for i in 0..n-1, the
 * caller taking part; returns when all are done. Not reentrant. */
void cli_pool_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg);

/* ------------------------------------------------------------- progress */

/* A progress bar with rate and ETA on stderr, drawn only when enabled (a
 * batch, stderr a terminal, not -q). */
struct cli_progress {
    int enabled, drawn;
    uint64_t total;
    double start, last;
};

void cli_progress_start(struct cli_progress *p, uint64_t total, int enabled);
/* Redraws for done maps of total, at most ten times a second (always for
 * the last one). */
void cli_progress_update(struct cli_progress *p, uint64_t done);
/* Erases the bar, so that a line can be printed on stderr (every
 * cli_error does so: cli_progress_start hooks it to the messages). */
void cli_progress_clear(struct cli_progress *p);
/* Erases the bar for good and unhooks it from the messages. */
void cli_progress_stop(struct cli_progress *p);

/* ---------------------------------------------------------------- batch */

/* What a run makes: the pipeline and everything else main.c prepared. */
struct cli_run {
    const struct cli_options *opt;
    const cg_pipeline *pipeline;
    const cg_grid *input; /* -i, or NULL */
    uint32_t width, height;
    uint64_t seed;           /* map i uses seed + i (mod 2^64) */
    int has_seed;            /* a seed was given or drawn (metadata) */
    int seed_unannounced;    /* drawn, and not printed before the run (--stats carries it):
                              * a failure message names it */
    const char *preset_name; /* for metadata */
    const char *preset_text;
    size_t preset_text_len;
    unsigned threads;    /* -j resolved: 1 or more */
    uint64_t map_memory; /* the memory budget of each map's run, 0: none */
};

/* Runs the run's maps and writes them, in map order, with their --stats
 * lines. Returns an exit status, after the messages. */
int cli_batch_run(const struct cli_run *run);

/* budget.c - checks what the run needs (cli_batch_memory) against
 * the memory budget (--max-memory, else cli_memory_available) and sets
 * run->map_memory, each map's share. Returns an exit status, after the
 * message. */
int cli_check_memory(struct cli_run *run);

/* The memory a run may use when --max-memory is not given: what the system
 * says is available now (else the physical memory), capped by the room
 * left in the control group the tool runs in and every group above it
 * (limit less usage, plus the page cache it can drop), less a sixteenth
 * for what the budget does not count. 0 if none of it can be read (no
 * budget). */
uint64_t cli_memory_available(void);

/* cli_memory_available from the files given (tests use a made-up tree):
 * /proc/meminfo, /proc/self/cgroup and the cgroup mount /sys/fs/cgroup. */
uint64_t cli_memory_room(const char *meminfo, const char *proc_cgroup, const char *cgroup_root);

/* The bytes of memory one map of the run needs (cg_pipeline_memory plus
 * --stats' scratch), and how many maps run at once; cg_pipeline_memory's
 * status: CG_EINVAL for a run the library refuses (a size below the
 * preset's minimum, past CG_MAX_DIM, ...), CG_EOVERFLOW past 2^64 bytes. */
cg_status cli_batch_memory(const struct cli_run *run, uint64_t *per_map, unsigned *at_once);

/* --------------------------------------------------------------- output */

/* An output in progress: a temporary file beside the target (renamed over it
 * on commit), the target itself when it is not a regular file (a device or
 * a FIFO), or stdout. */
struct cli_output {
    const char *path;   /* as given, for messages; NULL = stdout */
    const char *target; /* where the file lands: path, or resolved */
    char *resolved;     /* path with its symlink resolved (owned), or NULL */
    FILE *fp;
    char *iobuf;     /* fp's buffer (owned), or NULL */
    int atomic;      /* fp is the temporary file */
    int fd;          /* ... and its descriptor */
    int slot;        /* its slot among the pending temporary files, or -1 */
    int err;         /* errno of the first failed write */
    int no_dir_sync; /* commit leaves the directory's sync to the caller */
    int synced;      /* its data is on disk already: close does not fsync it */
    int in_ram;      /* its folder is in RAM (tmpfs): no writeback to start */
};

/* Temporary files in flight at most (a batch's files in one round). */
#define CLI_MAX_TEMPS 64

/* Installs, for every signal that ends the process (but SIGKILL, and
 * SIGXFSZ, which it ignores), a handler that removes the pending temporary
 * file before the signal takes its default action. */
void cli_install_signal_handlers(void);

/* Opens path for writing (NULL or "-": stdout); for a file, creates the
 * temporary file now so a bad directory fails before any work is done.
 * Returns CLI_EXIT_OK or CLI_EXIT_FAILURE after printing why. */
int cli_output_open(struct cli_output *out, const char *path);

/* Flushes, syncs and renames the temporary file over the target (or flushes
 * stdout). On failure prints why and leaves any existing target untouched. */
int cli_output_commit(struct cli_output *out);

/* The first half of a commit, safe on any thread: flushes, syncs and closes
 * a file (not stdout). Returns 0 or the errno of the first failure, which
 * out->err keeps; prints nothing. cli_output_commit then renames. */
int cli_output_close(struct cli_output *out);

/* Before cli_output_close, safe on any thread: flushes a file (not stdout)
 * and starts writing it to disk without waiting, so that a batch's files,
 * closed later one after the other, share their syncs. Returns 0 or the
 * errno of the first failure, which out->err keeps; prints nothing. */
int cli_output_flush(struct cli_output *out);

/* Makes the flushed temporary files outs[0..n-1] durable with one sync of
 * the file system the first is on (Linux's syncfs) and marks those on it
 * synced, so that their closes skip the fsync each would cost. Does
 * nothing for fewer than two files, off Linux or before Linux 5.8 (whose
 * syncfs does not report errors), or when the sync fails (the
 * closes then fsync and report the error per file). Prints nothing. */
void cli_output_sync_all(struct cli_output *const *outs, size_t n);

/* fsyncs the directory holding target, making renames in it durable. */
void cli_sync_directory(const char *target);

/* Blocks / restores the signals that end the process (but the faults) in
 * the calling thread. */
void cli_block_signals(sigset_t *old);
void cli_restore_signals(const sigset_t *old);

/* Nonzero if paths a and b name files of the same folder (the text before
 * their last '/'). */
int cli_same_folder(const char *a, const char *b);

/* On the main thread, around a batch's round of creations or of renames:
 * blocks the signals cli_block_signals blocks until the release, and the
 * output functions skip their own block and restore meanwhile (the
 * handler still sees every slot whole; a signal waits for the release).
 * Not nested. */
void cli_output_hold_signals(void);
void cli_output_release_signals(void);

/* Discards an output that will not be committed; safe to call twice. */
void cli_output_abort(struct cli_output *out);

/* Flushes and closes stdout, reporting a write error (a full disk, a closed
 * pipe is reported quietly). Returns CLI_EXIT_OK or CLI_EXIT_FAILURE. */
int cli_close_stdout(void);

#endif
