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

/* ---------------------------------------------------------------- input */

/* Reads all of fp. Returns 0 or an errno value. */
static int read_stream(FILE *fp, char **data, size_t *len)
{
    struct stat st;
    size_t cap = 1 << 16, n = 0;
    char *buf;

    if (fstat(fileno(fp), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        /* One byte more than the file, so the first read already sees EOF. */
        if (S_ISREG(st.st_mode) && st.st_size >= 0 && (uintmax_t)st.st_size < SIZE_MAX)
            cap = (size_t)st.st_size + 1;
    }
    buf = malloc(cap);
    if (!buf)
        return ENOMEM;

    for (;;) {
        if (n == cap) {
            char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                return ENOMEM;
            }
            buf = bigger;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, fp);
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

/* Reads a whole file ("-": stdin). Returns an exit status, after a message. */
static int read_file(const char *path, char **data, size_t *len)
{
    int from_stdin = strcmp(path, "-") == 0;
    FILE *fp = from_stdin ? stdin : fopen(path, "rb");
    int err = fp ? read_stream(fp, data, len) : errno;

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

static int load_map(const char *path, cg_grid **grid)
{
    char *text = NULL;
    size_t len = 0;
    cg_diag diag = {0};
    int rc = read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK)
        return rc;
    cg_status st = cg_read_ascii(text, len, grid, &diag);
    free(text);
    if (st == CG_OK)
        return CLI_EXIT_OK;
    if (st == CG_ENOMEM)
        cli_error("out of memory reading '%s'", strcmp(path, "-") == 0 ? "<stdin>" : path);
    else
        cli_text_error("", strcmp(path, "-") == 0 ? "<stdin>" : path, "", &diag, st);
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
        int rc = read_file(opt->preset_file, &file_text, &len);
        if (rc != CLI_EXIT_OK)
            return rc;
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
    if (opt->have_chunk) {
        uint32_t halo = 0;
        cg_diag diag = {0};
        if (cg_pipeline_chunk_halo(pipeline, &halo, &diag) != CG_OK) {
            rc = cli_usage_error("--chunk: %s", diag.message);
            goto done;
        }
    }

    if (opt->input) {
        if ((rc = load_map(opt->input, &input)) != CLI_EXIT_OK)
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

    struct cli_run job = {opt,
                          pipeline,
                          input,
                          width,
                          height,
                          0,
                          0,
                          mt.name,
                          mt.text,
                          mt.len,
                          resolve_jobs(opt->jobs),
                          0};
    if ((rc = cli_check_memory(&job)) != CLI_EXIT_OK)
        goto done;

    if (opt->have_seed) {
        seed = opt->seed;
    } else if (cg_pipeline_uses_seed(pipeline)) {
        if ((rc = draw_seed(&seed)) != CLI_EXIT_OK)
            goto done;
        /* Reported before the run, so even a failed run can be reproduced. */
        if (!opt->quiet)
            fprintf(stderr, "cavegen: seed %" PRIu64 "\n", seed);
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

int main(int argc, char **argv)
{
    struct cli_options opt;
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
