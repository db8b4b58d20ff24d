/* main.c - the flow of the cavegen command: options, pipeline, run, write.
 *
 * Exit statuses: 0 success, 1 runtime failure, 2 usage error; every message
 * is one line on stderr starting "cavegen: " (docs/cli.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "cli.h"
#include "help.h"
#include "messages.h"
#include "step_options.h"

#define MIB (UINT64_C(1) << 20)
/* The preset language's longest line (docs/presets.md). */
#define PRESET_LINE_MAX 100000u

/* ---------------------------------------------------------------- input */

/* Why a bounded read stopped before the end of its input. */
enum read_stop { READ_ALL = 0, READ_LONG_LINE, READ_MANY_LINES, READ_OVER_BUDGET };

/* Limits on what is read, so that a hostile input (a 1 GiB row, -i
 * /dev/zero) fails when it passes them, not by the OOM killer: a line of
 * more than max_line bytes stops the read with that line's first
 * max_line + 1 bytes read (a parser then says why), so does the end of
 * line max_lines + 1, and a text whose buffer would pass max_total bytes. */
struct read_limits {
    size_t max_line, max_lines, max_total;
    enum read_stop stop; /* out */
    size_t line;         /* out: the 1-based line the read stopped on */
};

/* Reads fp up to the limits. Returns 0 or an errno value. */
static int read_stream(FILE *fp, struct read_limits *lim, char **data, size_t *len)
{
    struct stat st;
    size_t cap = 1 << 16, n = 0, cur = 0; /* cur: bytes of the line being read */
    char *buf;

    lim->stop = READ_ALL;
    lim->line = 1;
    if (fstat(fileno(fp), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        /* One byte more than the file, so the first read already sees EOF. */
        if (S_ISREG(st.st_mode) && st.st_size >= 0 && (uintmax_t)st.st_size < SIZE_MAX)
            cap = (size_t)st.st_size + 1;
    }
    if (cap > lim->max_total)
        cap = lim->max_total;
    if (cap == 0)
        cap = 1;
    buf = malloc(cap);
    if (!buf)
        return ENOMEM;

    for (;;) {
        if (n == cap) {
            if (cap >= lim->max_total) {
                lim->stop = READ_OVER_BUDGET;
                break;
            }
            size_t grown = cap <= lim->max_total / 2 ? cap * 2 : lim->max_total;
            char *bigger = realloc(buf, grown);
            if (!bigger) {
                free(buf);
                return ENOMEM;
            }
            buf = bigger;
            cap = grown;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, fp);
        /* Track the current line's length and number. */
        const char *p = buf + n, *end = buf + n + got, *nl;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            cur += (size_t)(nl - p);
            if (cur > lim->max_line)
                break;
            cur = 0;
            p = nl + 1;
            if (++lim->line > lim->max_lines) {
                n = (size_t)(p - buf);
                lim->stop = READ_MANY_LINES;
                break;
            }
        }
        if (lim->stop == READ_MANY_LINES)
            break;
        if (!nl)
            cur += (size_t)(end - p);
        if (cur > lim->max_line) {
            /* Keep the line's first max_line + 1 bytes. */
            size_t line_end = (size_t)((nl ? nl : end) - buf);
            n = line_end - (cur - lim->max_line - 1);
            lim->stop = READ_LONG_LINE;
            break;
        }
        n += got;
        if (n < cap) {
            if (ferror(fp)) {
                int err = errno ? errno : EIO;
                free(buf);
                return err;
            }
            if (feof(fp))
                break;
        }
    }
    *data = buf;
    *len = n;
    return 0;
}

/* Reads a whole file ("-": stdin) within lim. Returns an exit status, after
 * a message. */
static int read_file(const char *path, struct read_limits *lim, char **data, size_t *len)
{
    int from_stdin = strcmp(path, "-") == 0;
    FILE *fp = from_stdin ? stdin : fopen(path, "rb");
    int err = fp ? read_stream(fp, lim, data, len) : errno;

    if (fp && !from_stdin)
        fclose(fp);
    if (err == 0)
        return CLI_EXIT_OK;
    if (err == ENOMEM)
        cli_error("out of memory reading '%s'", from_stdin ? "<stdin>" : path);
    else if (from_stdin)
        cli_error("cannot read standard input: %s", strerror(err));
    else
        cli_error("cannot read '%s': %s", path, strerror(err));
    return CLI_EXIT_FAILURE;
}

/* The memory budget of the run (--max-memory, else what is available);
 * SIZE_MAX when unknown. */
static size_t read_budget(const struct cli_options *opt)
{
    uint64_t budget = opt->max_memory ? opt->max_memory : cli_memory_available();
    return budget == 0 || budget >= SIZE_MAX ? SIZE_MAX : (size_t)budget;
}

static int over_budget(const char *name, size_t budget)
{
    char limit[32];
    cg_format_bytes(limit, budget, 0);
    cli_error("cannot read '%s': it is larger than the memory budget of %s (--max-memory)", name,
              limit);
    return CLI_EXIT_FAILURE;
}

static int load_map(const struct cli_options *opt, cg_grid **grid)
{
    const char *path = opt->input;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    char *text = NULL;
    size_t len = 0, budget = read_budget(opt);
    cg_diag diag = {0};
    /* A row holds at most CG_MAX_DIM cells and a '\r'. The text and the
     * grid read from it (a bit a cell) are held together: the text may
     * take seven eighths of the budget. */
    struct read_limits lim = {.max_line = (size_t)CG_MAX_DIM + 1,
                              .max_lines = (size_t)CG_MAX_DIM + 1,
                              .max_total = budget == SIZE_MAX ? SIZE_MAX : budget - budget / 8};
    int rc = read_file(path, &lim, &text, &len);

    if (rc != CLI_EXIT_OK)
        return rc;
    if (lim.stop == READ_LONG_LINE && lim.line > 1) {
        /* The rows before it first, whose faults come first; the row too
         * long is then this one. */
        size_t before = len;
        while (before > 0 && text[before - 1] != '\n')
            before--;
        cg_status st = cg_read_ascii(text, before, grid, &diag);
        cg_grid_free(*grid);
        *grid = NULL;
        if (st == CG_OK) {
            free(text);
            cli_error("%s:%zu:%u: a row has more than %u cells", name, lim.line, CG_MAX_DIM + 1,
                      CG_MAX_DIM);
            return CLI_EXIT_FAILURE;
        }
        free(text);
        if (st == CG_ENOMEM)
            cli_error("out of memory reading '%s'", name);
        else
            cli_text_error("", name, "", &diag, st);
        return CLI_EXIT_FAILURE;
    }
    if (lim.stop == READ_OVER_BUDGET) {
        free(text);
        return over_budget(name, budget);
    }
    cg_status st = cg_read_ascii(text, len, grid, &diag);
    free(text);
    if (st == CG_OK)
        return CLI_EXIT_OK;
    if (st == CG_ENOMEM)
        cli_error("out of memory reading '%s'", name);
    else
        cli_text_error("", name, "", &diag, st);
    return CLI_EXIT_FAILURE;
}

/* The pipeline as preset text and the preset's name, recorded in the
 * metadata of JSON and Tiled maps (cg_map_info). */
struct map_text {
    const char *name;
    char *text;
    size_t len;
};

/* Appends len bytes of text, then a line break if it lacks one. Returns 0,
 * or -1 when out of memory. */
static int map_text_add(struct map_text *mt, const char *text, size_t len)
{
    size_t nl = len > 0 && text[len - 1] != '\n' ? 1 : 0;
    if (len > SIZE_MAX - nl - mt->len)
        return -1;
    char *grown = realloc(mt->text, mt->len + len + nl + 1);
    if (!grown)
        return -1;
    memcpy(grown + mt->len, text, len);
    mt->len += len;
    if (nl)
        grown[mt->len++] = '\n';
    mt->text = grown;
    return 0;
}

/* The preset's steps, then (by the caller) the step options. */
static int load_preset(cg_pipeline *pipeline, const struct cli_options *opt, struct map_text *mt)
{
    const char *name = opt->preset_name;
    const char *text = opt->preset_builtin;
    size_t len = opt->preset_builtin_len;
    char *file_text = NULL;
    cg_diag diag = {0};

    if (opt->preset_file) {
        /* A line of more than PRESET_LINE_MAX bytes is an error the parser
         * reports (so reading stops there); the text is held twice, parsed
         * and kept for the maps' metadata. */
        size_t budget = read_budget(opt);
        struct read_limits lim = {.max_line = PRESET_LINE_MAX,
                                  .max_lines = SIZE_MAX,
                                  .max_total = budget == SIZE_MAX ? SIZE_MAX : budget / 2};
        int rc = read_file(opt->preset_file, &lim, &file_text, &len);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (lim.stop == READ_OVER_BUDGET) {
            free(file_text);
            return over_budget(opt->preset_file, budget);
        }
        text = file_text;
    } else if (!name && opt->nsteps == (size_t)opt->has_reach && !opt->input) {
        /* With neither a preset nor steps, the pipeline is type2 (docs/cli.md). */
        name = "type2";
        text = cg_preset_builtin(name, &len);
        if (!text) {
            cli_error("the built-in preset 'type2' is missing from this build");
            return CLI_EXIT_FAILURE;
        }
    }
    if (!text && opt->nsettings) {
        return cli_usage_error("-D changes a preset's values, and there is no preset (-p NAME, or "
                               "--step lines, which are yours to write)");
    }
    if (!text)
        return CLI_EXIT_OK;
    char *applied = NULL;
    if (opt->nsettings) {
        int rc = cli_apply_settings(opt, text, len, &applied, &len);
        if (rc != CLI_EXIT_OK) {
            free(file_text);
            return rc;
        }
        text = applied;
    }

    cg_status st = cg_pipeline_parse(pipeline, text, len, &diag);
    if (st == CG_OK && map_text_add(mt, text, len) != 0)
        st = CG_ENOMEM;
    free(file_text);
    free(applied);
    mt->name = name;
    if (st == CG_OK)
        return CLI_EXIT_OK;
    if (st == CG_ENOMEM)
        cli_error("out of memory");
    else if (opt->preset_file)
        cli_text_error("", opt->preset_file, "", &diag, st);
    else
        cli_text_error("presets/", name, ".preset", &diag, st); /* where a built-in comes from */
    return CLI_EXIT_FAILURE;
}

/* ------------------------------------------------------------ resources */

/* Without --seed, a seed comes from the OS (never rand() or the clock,
 * which repeat across fast batch invocations). */
static int draw_seed(uint64_t *seed)
{
    unsigned char buf[sizeof *seed];
    size_t got = 0;

#if defined(__linux__)
    while (got < sizeof buf) {
        ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break; /* ENOSYS on old kernels: fall back to the device */
        got += (size_t)n;
    }
#endif
    if (got < sizeof buf) {
        int fd = open("/dev/urandom", O_RDONLY);
        got = 0;
        while (fd >= 0 && got < sizeof buf) {
            ssize_t n = read(fd, buf + got, sizeof buf - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        int err = errno;
        if (fd >= 0)
            close(fd);
        if (got < sizeof buf) {
            cli_error("cannot draw a random seed: %s (give one with --seed)",
                      strerror(err ? err : EIO));
            return CLI_EXIT_FAILURE;
        }
    }
    *seed = 0;
    for (size_t i = 0; i < sizeof buf; i++)
        *seed = *seed << 8 | buf[i];
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------- commands */

static int list_presets(void)
{
    size_t count = cg_preset_count();
    int width = 0;

    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(cg_preset_name(i));
        if (n > (size_t)width)
            width = n > 64 ? 64 : (int)n;
    }
    for (size_t i = 0; i < count; i++) {
        const char *summary = cg_preset_summary(i);
        printf("%-*s  %s\n", width, cg_preset_name(i), summary ? summary : "");
    }
    return cli_close_stdout();
}

/* One line per format of the library's table: name, extension, summary;
 * "(not in this build)" for one this build cannot write. */
static int list_formats(void)
{
    cg_format_info info;
    for (size_t i = 0; cg_format_describe((cg_format)i, &info) == CG_OK; i++)
        printf("%-9s  %-5s  %s%s\n", info.name, info.extension, info.summary,
               info.available ? "" : " (not in this build)");
    return cli_close_stdout();
}

/* The preset's text (with the -D settings applied), then as comments the
 * settings it offers, each with its value: what -D can change. */
static int show_preset(const struct cli_options *opt)
{
    size_t len = 0;
    const char *text = cg_preset_builtin(opt->show_name, &len); /* checked with the options */
    char *applied = NULL, *list = NULL;
    int rc = text ? cli_apply_settings(opt, text, len, &applied, &len) : CLI_EXIT_FAILURE;
    if (rc != CLI_EXIT_OK)
        return rc;
    size_t cap = 2 * len + 64, nlist = 0;
    for (const char *p = applied; p < applied + len; p++)
        cap += *p == '\n' ? 64 : 0;
    list = malloc(cap);
    if (!list || cg_preset_settings(applied, len, list, cap, &nlist) != CG_OK) {
        free(applied);
        free(list);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    fwrite(applied, 1, len, stdout);
    printf("#\n# Settings (-D NAME=VALUE changes one without copying the preset):\n");
    for (const char *p = list; p < list + nlist;) {
        const char *nl = memchr(p, '\n', (size_t)(list + nlist - p));
        printf("#   %.*s\n", (int)(nl - p), p);
        p = nl + 1;
    }
    free(applied);
    free(list);
    return cli_close_stdout();
}

/* Threads for -j N (0: one per online core). */
static unsigned resolve_jobs(uint32_t jobs)
{
    if (jobs > 0)
        return jobs;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (n > 1024 ? 1024u : (unsigned)n) : 1u;
}

/* A chunk runs its pipeline on the window grown by the halo on every side,
 * every pass over all of it: a tiny window with a deep halo (4x4 and
 * `smooth 30000`) is a 60004x60004 grid through 30000 passes, hours for 16
 * cells. The halo sums the passes' radii, so there are at most halo
 * passes: their cells, times that, bound the work. Past CHUNK_WORK_MAX
 * cell updates (a minute or so) the chunk is refused, with the reason. */
#define CHUNK_WORK_MAX (UINT64_C(1) << 38)

static int check_chunk_work(uint32_t width, uint32_t height, uint32_t halo)
{
    uint64_t w = (uint64_t)width + 2 * (uint64_t)halo, h = (uint64_t)height + 2 * (uint64_t)halo;
    /* w, h < 2^33: w * h < 2^66 may overflow; compare by division. */
    if (halo == 0 || w <= CHUNK_WORK_MAX / h / halo)
        return CLI_EXIT_OK;
    cli_error("--chunk: the steps read %" PRIu32 " cells beyond the window, so a %" PRIu32
              "x%" PRIu32 " chunk runs them on a %" PRIu64 "x%" PRIu64
              " grid, over the work a chunk may take: use a larger window with fewer passes, "
              "or no --chunk",
              halo, width, height, w, h);
    return CLI_EXIT_FAILURE;
}

/* libpng writes images of at most 1,000,000 pixels a side (its default
 * user limits): a larger PNG is refused before the run, not after it. */
#define PNG_SIDE_MAX 1000000u

static int check_png_size(const struct cli_options *opt, uint32_t width, uint32_t height)
{
    if (opt->format != CG_FORMAT_PNG)
        return CLI_EXIT_OK;
    uint64_t pw = (uint64_t)width * opt->scale, ph = (uint64_t)height * opt->scale;
    if (pw <= PNG_SIDE_MAX && ph <= PNG_SIDE_MAX)
        return CLI_EXIT_OK;
    cli_error("a %" PRIu32 "x%" PRIu32 " map at --scale %" PRIu32 " is a %" PRIu64 "x%" PRIu64
              " PNG image, over the %u pixels a side PNG images may have here: use a smaller "
              "--scale or another format",
              width, height, opt->scale, pw, ph, PNG_SIDE_MAX);
    return CLI_EXIT_FAILURE;
}

static int run(const struct cli_options *opt)
{
    cg_pipeline *pipeline = NULL;
    cg_grid *input = NULL;
    uint32_t width = 0, height = 0;
    uint64_t seed = 0;
    int rc;
    struct map_text mt = {NULL, NULL, 0};

    if (cg_pipeline_new(&pipeline) != CG_OK) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if ((rc = load_preset(pipeline, opt, &mt)) != CLI_EXIT_OK ||
        (rc = cli_append_steps(pipeline, opt)) != CLI_EXIT_OK)
        goto done;
    for (size_t i = 0; i < opt->nsteps; i++) {
        if (map_text_add(&mt, opt->steps[i].line, strlen(opt->steps[i].line)) != 0) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
    }
    /* A step that needs the whole map cannot run in a chunk: the command
     * line asks for something impossible (docs/scale.md). */
    uint32_t halo = 0;
    if (opt->have_chunk) {
        cg_diag diag = {0};
        if (cg_pipeline_chunk_halo(pipeline, &halo, &diag) != CG_OK) {
            rc = cli_usage_error("--chunk: %s", diag.message);
            goto done;
        }
    }

    if (opt->input) {
        if ((rc = load_map(opt, &input)) != CLI_EXIT_OK)
            goto done;
        width = cg_grid_width(input);
        height = cg_grid_height(input);
    } else {
        cg_pipeline_default_size(pipeline, &width, &height);
        if (opt->width)
            width = opt->width;
        if (opt->height)
            height = opt->height;
    }

    if (opt->have_chunk && (rc = check_chunk_work(width, height, halo)) != CLI_EXIT_OK)
        goto done;

    struct cli_run job = {.opt = opt,
                          .pipeline = pipeline,
                          .input = input,
                          .width = width,
                          .height = height,
                          .preset_name = mt.name,
                          .preset_text = mt.text,
                          .preset_text_len = mt.len,
                          .threads = resolve_jobs(opt->jobs)};
    if ((rc = cli_check_memory(&job)) != CLI_EXIT_OK ||
        (rc = check_png_size(opt, width, height)) != CLI_EXIT_OK)
        goto done;

    if (opt->have_seed) {
        seed = opt->seed;
    } else if (cg_pipeline_uses_seed(pipeline)) {
        if ((rc = draw_seed(&seed)) != CLI_EXIT_OK)
            goto done;
        /* Reported before the run, so even a failed run can be reproduced;
         * with --stats its lines carry the seed (and a failure message
         * names it), so that stderr holds nothing but them. */
        if (!opt->quiet && opt->stats == CLI_STATS_NONE)
            fprintf(stderr, "cavegen: seed %" PRIu64 "\n", seed);
        job.seed_unannounced = opt->stats != CLI_STATS_NONE;
    }
    job.seed = seed;
    job.has_seed = opt->have_seed || cg_pipeline_uses_seed(pipeline);

    /* Outputs are opened before their maps run, so a bad path fails before
     * the work is done; the handlers remove them if the run is cut short. */
    cli_install_signal_handlers();
    rc = cli_batch_run(&job);

done:
    cg_grid_free(input);
    cg_pipeline_free(pipeline);
    free(mt.text);
    return rc;
}

/* Opens what is missing of standard input, output and error: a file the
 * tool opens would otherwise take fd 2 (`2>&-`), and a message meant for
 * stderr would land in a map. Each is /dev/null opened the wrong way round,
 * so that reading a closed stdin or writing a closed stdout still fails
 * (EBADF) as it would have. Returns 0, or -1 if /dev/null cannot be had. */
static int open_standard_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got != fd) {
            if (got >= 0)
                close(got);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct cli_options opt;

    /* Nothing can be said: stderr may be the one missing. */
    if (open_standard_fds() != 0)
        return CLI_EXIT_FAILURE;
    int rc = cli_parse_options(&opt, argc, argv);

    if (rc == CLI_EXIT_OK) {
        switch (opt.action) {
        case CLI_HELP:
            cli_print_help(stdout);
            rc = cli_close_stdout();
            break;
        case CLI_VERSION:
            printf("cavegen %s\n", cg_version_string());
            rc = cli_close_stdout();
            break;
        case CLI_LIST_PRESETS:
            rc = list_presets();
            break;
        case CLI_LIST_FORMATS:
            rc = list_formats();
            break;
        case CLI_SHOW_PRESET:
            rc = show_preset(&opt);
            break;
        case CLI_RUN:
            rc = run(&opt);
            break;
        }
    }
    cli_options_free(&opt);
    return rc;
}
