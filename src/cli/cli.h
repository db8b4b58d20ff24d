/* cli.h - declarations shared by the files of the cavegen command-line tool.
 *
 * The tool is a thin client of the public API (cavegen/cavegen.h only):
 * options.c turns argv into a struct cli_options, output.c writes a map to a
 * file atomically or to stdout, main.c runs the flow and owns the messages.
 */
#ifndef CAVEGEN_CLI_H
#define CAVEGEN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cavegen/cavegen.h"

/* Exit statuses (docs/cli.md). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1, /* runtime: unreadable or malformed file, memory, write error */
    CLI_EXIT_USAGE = 2    /* the command line is wrong */
};

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

/* ------------------------------------------------------------- messages */

/* One line on stderr: "cavegen: " + the formatted text. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* cli_error, then the line that points to --help. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* -------------------------------------------------------------- options */

enum cli_action {
    CLI_RUN = 0,
    CLI_HELP,
    CLI_VERSION,
    CLI_LIST_PRESETS,
    CLI_SHOW_PRESET
};

/* --stats: none, one line of key=value, or one JSON object. */
enum cli_stats {
    CLI_STATS_NONE = 0,
    CLI_STATS_TEXT,
    CLI_STATS_JSON
};

/* One step-appending option, kept in command-line order. */
struct cli_step {
    const char *option; /* "--step", "--fill" or "--generations" */
    const char *arg;    /* the value as the user typed it (points into argv) */
    char *line;         /* the preset-language line it appends (owned) */
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
    int quiet;
    enum cli_stats stats;  /* --stats[=FORMAT] */
    uint32_t max_attempts; /* --max-attempts; 0 = the library's default */

    const char *show_name; /* --show-preset NAME */

    struct cli_step *steps;
    size_t nsteps, capsteps;
};

/* Parses argv into *opt (zeroed first) and checks everything that does not
 * need a file: numbers, preset names, step syntax, conflicts. Returns
 * CLI_EXIT_OK, or CLI_EXIT_USAGE / CLI_EXIT_FAILURE after printing why.
 * Call cli_options_free afterwards in every case. */
int cli_parse_options(struct cli_options *opt, int argc, char **argv);
void cli_options_free(struct cli_options *opt);

/* Appends the step options to pipeline in command-line order. Returns
 * CLI_EXIT_OK, or an exit status after printing why. */
int cli_append_steps(cg_pipeline *pipeline, const struct cli_options *opt);

/* The --help text. */
void cli_print_help(FILE *fp);

/* --------------------------------------------------------------- output */

/* An output in progress: a temporary file beside the target (renamed over it
 * on commit), the target itself when it is not a regular file (a device or
 * a FIFO), or stdout. */
struct cli_output {
    const char *path;   /* as given, for messages; NULL = stdout */
    const char *target; /* where the file lands: path, or resolved */
    char *resolved;     /* path with its symlink resolved (owned), or NULL */
    FILE *fp;
    int atomic; /* fp is the temporary file */
    int err;    /* errno of the first failed write */
};

/* Installs SIGINT/SIGTERM/SIGHUP handlers that remove a pending temporary
 * file before the signal takes its default action. */
void cli_install_signal_handlers(void);

/* Opens path for writing (NULL or "-": stdout); for a file, creates the
 * temporary file now so a bad directory fails before any work is done.
 * Returns CLI_EXIT_OK or CLI_EXIT_FAILURE after printing why. */
int cli_output_open(struct cli_output *out, const char *path);

/* Encodes grid into out. On failure prints why, aborts out and returns
 * CLI_EXIT_FAILURE. */
int cli_output_write(struct cli_output *out, const cg_grid *grid,
                     const cg_write_options *options);

/* Flushes, syncs and renames the temporary file over the target (or flushes
 * stdout). On failure prints why and leaves any existing target untouched. */
int cli_output_commit(struct cli_output *out);

/* Discards an output that will not be committed; safe to call twice. */
void cli_output_abort(struct cli_output *out);

/* Flushes and closes stdout, reporting a write error (a full disk, a closed
 * pipe is reported quietly). Returns CLI_EXIT_OK or CLI_EXIT_FAILURE. */
int cli_close_stdout(void);

#endif
