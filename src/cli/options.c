/* options.c - the command line of cavegen, parsed into a struct cli_options.
 *
 * Everything that can be checked without touching a file is checked here, so
 * that exit status 2 always means "the command line is wrong" and is reported
 * before any slow or failing runtime work (docs/cli.md). The values are read
 * by their own files: numbers.c, step_options.c (the steps, and the sizes,
 * whose ranges the library's preset parser checks), output_options.c (-f,
 * --scale, --stats), preset_lookup.c; this file has the getopt table, the
 * options' conflicts and the order of the checks.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cavegen/cavegen.h"
#include "cli.h"
#include "messages.h"
#include "numbers.h"
#include "output_options.h"
#include "pattern.h"
#include "preset_lookup.h"
#include "step_options.h"

/* Values for options that have no short form. */
enum {
    OPT_SIZE = 256,
    OPT_STEP,
    OPT_FILL,
    OPT_GENERATIONS,
    OPT_SCALE,
    OPT_LIST_PRESETS,
    OPT_LIST_FORMATS,
    OPT_SHOW_PRESET,
    OPT_STATS,
    OPT_MAX_ATTEMPTS,
    OPT_REACH,
    OPT_MOVES,
    OPT_CHUNK,
    OPT_MAX_MEMORY,
    OPT_PREVIEW,
    OPT_KEEP_GOING
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, 'p'},
    {"seed", required_argument, NULL, 's'},
    {"width", required_argument, NULL, 'W'},
    {"height", required_argument, NULL, 'H'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"input", required_argument, NULL, 'i'},
    {"step", required_argument, NULL, OPT_STEP},
    {"set", required_argument, NULL, 'D'},
    {"fill", required_argument, NULL, OPT_FILL},
    {"generations", required_argument, NULL, OPT_GENERATIONS},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"preview", no_argument, NULL, OPT_PREVIEW},
    {"stats", optional_argument, NULL, OPT_STATS},
    {"max-attempts", required_argument, NULL, OPT_MAX_ATTEMPTS},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"reach", required_argument, NULL, OPT_REACH},
    {"moves", required_argument, NULL, OPT_MOVES},
    {"count", required_argument, NULL, 'n'},
    {"jobs", required_argument, NULL, 'j'},
    {"chunk", required_argument, NULL, OPT_CHUNK},
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
    {"list-presets", no_argument, NULL, OPT_LIST_PRESETS},
    {"list-formats", no_argument, NULL, OPT_LIST_FORMATS},
    {"show-preset", required_argument, NULL, OPT_SHOW_PRESET},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The leading ':' makes getopt report a missing argument as ':' and stay
 * silent: its own messages would start with argv[0], not "cavegen: ". */
static const char short_options[] = ":p:s:W:H:i:o:f:n:j:D:qhV";

#define COUNT_MAX UINT32_MAX /* maps in a batch */

/* What the loop keeps besides the options themselves. */
struct parse_state {
    struct cli_options *opt;
    const char *map_option; /* the first option that only makes sense for a map */
    int have_format, have_output;
};

/* A group's answer for an option that is not in the group. */
#define NOT_MINE (-1)

/* The name of the option getopt stopped at, for messages. */
static const char *option_name(int c)
{
    for (const struct option *o = long_options; o->name; o++) {
        if (o->val == c)
            return o->name;
    }
    return "?";
}

static int bad_option(int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";

    if (c == ':') {
        if (optopt >= 256 || strncmp(arg, "--", 2) == 0)
            return cli_usage_error("option '--%s' requires an argument", option_name(optopt));
        return cli_usage_error("option '-%c' requires an argument", optopt);
    }
    if (strncmp(arg, "--", 2) != 0)
        return cli_usage_error("invalid option -- '%c'", optopt);
    if (optopt != 0 && strchr(arg, '='))
        return cli_usage_error("option '--%s' doesn't allow an argument", option_name(optopt));
    /* An unknown or ambiguous (abbreviated) long option. */
    const char *names[64];
    size_t n = 0;
    for (const struct option *o = long_options; o->name && n < 64; o++)
        names[n++] = o->name;
    const char *word = arg + 2;
    const char *near = cg_nearest_name(word, strcspn(word, "="), names, n);
    return cli_usage_error("unrecognized or ambiguous option '%s'%s%s%s", arg,
                           near ? "; did you mean '--" : "", near ? near : "", near ? "'?" : "");
}

/* -W N, -H N, --size WxH: the shape here, the range the library's: the
 * values go through a `size` line, whose parser is the one place that
 * checks a width and a height (1..CG_MAX_DIM), and are read back from it. */
static int parse_size_option(struct cli_options *opt, int c, const char *arg)
{
    const char *option = c == 'W' ? "--width" : c == 'H' ? "--height" : "--size";
    cg_pipeline *scratch = NULL;
    size_t wlen = 0;
    uint32_t width = 0, height = 0;
    int rc;

    if (c == OPT_SIZE) {
        rc = cli_check_dimensions(option, arg, &wlen);
        if (rc == CLI_EXIT_OK)
            rc = cli_check_line(option, arg, &scratch, "size %.*sx%s", (int)wlen, arg,
                                arg + wlen + 1);
    } else {
        rc = cli_check_integer(option, arg);
        if (rc == CLI_EXIT_OK)
            rc = cli_check_line(option, arg, &scratch, c == 'W' ? "size %sx1" : "size 1x%s", arg);
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    cg_pipeline_default_size(scratch, &width, &height);
    cg_pipeline_free(scratch);
    if (c != 'H')
        opt->width = width;
    if (c != 'W')
        opt->height = height;
    if (!opt->size_option)
        opt->size_option = option;
    return CLI_EXIT_OK;
}

/* The options that describe the map: its preset, seed, size, input and
 * steps. */
static int parse_map_option(struct cli_options *opt, int c, const char *arg)
{
    switch (c) {
    case 'p':
        if (opt->preset_name)
            return cli_usage_error("--preset given twice (a run uses one preset; add "
                                   "steps with --step)");
        opt->preset_name = arg;
        return CLI_EXIT_OK;
    case 's':
        opt->have_seed = 1;
        return cli_parse_number("--seed", arg, 0, UINT64_MAX, &opt->seed);
    case 'W':
    case 'H':
    case OPT_SIZE:
        return parse_size_option(opt, c, arg);
    case 'i':
        if (opt->input)
            return cli_usage_error("--input given twice");
        if (arg[0] == '\0')
            return cli_usage_error("--input: empty file name");
        opt->input = arg;
        return CLI_EXIT_OK;
    case OPT_STEP:
        return cli_add_step(opt, arg);
    case 'D':
        return cli_add_setting(opt, arg);
    case OPT_FILL:
        return cli_add_fill(opt, arg);
    case OPT_GENERATIONS:
        return cli_add_generations(opt, arg);
    case OPT_REACH:
        return cli_add_reach_start(opt, arg);
    case OPT_MOVES:
        return cli_set_moves(opt, arg);
    default:
        return NOT_MINE;
    }
}

/* The options that say where the map goes and in which form. */
static int parse_output_option(struct parse_state *ps, int c, const char *arg)
{
    struct cli_options *opt = ps->opt;

    switch (c) {
    case 'o':
        if (ps->have_output)
            return cli_usage_error("--output given twice");
        if (arg[0] == '\0')
            return cli_usage_error("--output: empty file name");
        opt->output = strcmp(arg, "-") == 0 ? NULL : arg;
        ps->have_output = 1;
        return CLI_EXIT_OK;
    case 'f':
        ps->have_format = 1;
        return cli_parse_format(arg, &opt->format);
    case OPT_SCALE:
        return cli_parse_scale(arg, &opt->scale);
    case OPT_PREVIEW:
        opt->preview = 1;
        return CLI_EXIT_OK;
    case OPT_STATS:
        return cli_parse_stats(arg, &opt->stats);
    default:
        return NOT_MINE;
    }
}

/* The options of how the maps are run: attempts, memory, batches, threads,
 * chunks (the command line's own ranges). */
static int parse_run_option(struct cli_options *opt, int c, const char *arg)
{
    uint64_t value = 0;
    int rc;

    switch (c) {
    case OPT_MAX_ATTEMPTS:
        rc = cli_parse_number("--max-attempts", arg, 1, CG_MAX_ATTEMPTS, &value);
        opt->max_attempts = (uint32_t)value;
        return rc;
    case OPT_KEEP_GOING:
        opt->keep_going = 1;
        return CLI_EXIT_OK;
    case OPT_MAX_MEMORY:
        return cli_parse_memory("--max-memory", arg, &opt->max_memory);
    case 'n':
        return cli_parse_number("--count", arg, 1, COUNT_MAX, &opt->count);
    case 'j':
        rc = cli_parse_number("--jobs", arg, 0, CLI_JOBS_MAX, &value);
        opt->jobs = (uint32_t)value;
        return rc;
    case OPT_CHUNK:
        opt->have_chunk = 1;
        return cli_parse_chunk("--chunk", arg, &opt->chunk_x, &opt->chunk_y);
    default:
        return NOT_MINE;
    }
}

/* The options that ask for something else than a map. */
static int parse_info_option(struct cli_options *opt, int c, const char *arg)
{
    switch (c) {
    case OPT_LIST_PRESETS:
    case OPT_LIST_FORMATS:
    case OPT_SHOW_PRESET:
        if (opt->action != CLI_RUN)
            return cli_usage_error("--list-presets, --list-formats and --show-preset cannot "
                                   "be combined, nor given twice");
        opt->action = c == OPT_LIST_PRESETS   ? CLI_LIST_PRESETS
                      : c == OPT_LIST_FORMATS ? CLI_LIST_FORMATS
                                              : CLI_SHOW_PRESET;
        if (c == OPT_SHOW_PRESET)
            opt->show_name = arg;
        return CLI_EXIT_OK;
    case 'q':
        opt->quiet = 1;
        return CLI_EXIT_OK;
    case 'h':
        opt->action = CLI_HELP;
        return CLI_EXIT_OK;
    case 'V':
        opt->action = CLI_VERSION;
        return CLI_EXIT_OK;
    default:
        return NOT_MINE;
    }
}

/* Nonzero for an option that only makes sense when a map is made. */
static int describes_map(int c)
{
    return c != 'q' && c != 'h' && c != 'V' && c != OPT_LIST_PRESETS && c != OPT_SHOW_PRESET &&
           c != OPT_LIST_FORMATS && c != 'D' && c != '?' && c != ':';
}

static int parse_one(struct parse_state *ps, int c, char **argv)
{
    if (!ps->map_option && describes_map(c))
        ps->map_option = option_name(c);
    int rc = parse_map_option(ps->opt, c, optarg);
    if (rc == NOT_MINE)
        rc = parse_output_option(ps, c, optarg);
    if (rc == NOT_MINE)
        rc = parse_run_option(ps->opt, c, optarg);
    if (rc == NOT_MINE)
        rc = parse_info_option(ps->opt, c, optarg);
    if (rc == NOT_MINE)
        rc = bad_option(c, argv);
    return rc;
}

/* --list-presets, --list-formats, --show-preset: nothing that describes a
 * map may come with them, and --show-preset takes a built-in name. */
static int check_info_action(const struct parse_state *ps)
{
    const struct cli_options *opt = ps->opt;
    const char *what = opt->action == CLI_LIST_PRESETS   ? "--list-presets"
                       : opt->action == CLI_LIST_FORMATS ? "--list-formats"
                                                         : "--show-preset";
    if (ps->map_option)
        return cli_usage_error("%s cannot be combined with --%s", what, ps->map_option);
    if (opt->action == CLI_SHOW_PRESET)
        return cli_find_builtin("--show-preset", opt->show_name);
    return CLI_EXIT_OK;
}

/* Options that contradict each other, and -n's output name. */
static int check_conflicts(const struct cli_options *opt)
{
    const char *why = NULL;

    if (opt->input && opt->size_option)
        return cli_usage_error("%s cannot be used with --input (the map has its own size)",
                               opt->size_option);
    if (opt->input && opt->have_chunk)
        return cli_usage_error("--chunk cannot be used with --input (a chunk is a window of "
                               "the infinite cave of a seed)");
    /* -n numbers its files through the output name (docs/cli.md). */
    if (opt->count && opt->output && cli_pattern_check(opt->output, &why) != 0)
        return cli_usage_error("--output '%s': %s (with -n the name needs one %%d, as in "
                               "'out/%%04d.png'; or use -o - for one stream)",
                               opt->output, why);
    return CLI_EXIT_OK;
}

/* The preset, the reach step, and the step options' syntax, checked now on
 * a scratch pipeline, so that a typo is a usage error even when a preset
 * file is also broken. */
static int check_pipeline(struct cli_options *opt)
{
    cg_pipeline *scratch = NULL;
    int rc;

    if (opt->preset_name &&
        (rc = cli_find_preset(opt->preset_name, &opt->preset_builtin, &opt->preset_builtin_len,
                              &opt->preset_file)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_finish_reach(opt)) != CLI_EXIT_OK || opt->nsteps == 0)
        return rc;
    if (cg_pipeline_new(&scratch) != CG_OK) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    rc = cli_append_steps(scratch, opt);
    cg_pipeline_free(scratch);
    return rc;
}

int cli_parse_options(struct cli_options *opt, int argc, char **argv)
{
    struct parse_state ps = {opt, NULL, 0, 0};
    int rc, c;

    memset(opt, 0, sizeof *opt);
    opt->scale = CG_DEFAULT_SCALE;
    opt->jobs = 1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if ((rc = parse_one(&ps, c, argv)) != CLI_EXIT_OK)
            return rc;
        /* GNU convention: --help and --version act at once, ignoring the rest. */
        if (opt->action == CLI_HELP || opt->action == CLI_VERSION)
            return CLI_EXIT_OK;
    }
    if (optind < argc)
        return cli_usage_error("unexpected argument '%s' (the output goes to -o FILE)",
                               argv[optind]);
    if (opt->action != CLI_RUN)
        return check_info_action(&ps);
    if ((rc = check_conflicts(opt)) != CLI_EXIT_OK ||
        (rc = cli_resolve_output(opt, ps.have_format)) != CLI_EXIT_OK)
        return rc;
    return check_pipeline(opt);
}

void cli_options_free(struct cli_options *opt)
{
    for (size_t i = 0; i < opt->nsteps; i++)
        free(opt->steps[i].line);
    free(opt->steps);
    free(opt->reach_from);
    opt->reach_from = NULL;
    free(opt->settings);
    opt->settings = NULL;
    opt->nsettings = opt->capsettings = 0;
    opt->steps = NULL;
    opt->nsteps = opt->capsteps = 0;
}
