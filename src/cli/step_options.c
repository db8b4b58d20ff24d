/* step_options.c - the options that add steps (step_options.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "messages.h"
#include "numbers.h"
#include "step_options.h"

/* A new string printed from fmt; NULL when out of memory. */
static char *vformat(const char *fmt, va_list ap) CLI_PRINTF(1, 0);

static char *vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

static char *format(const char *fmt, ...) CLI_PRINTF(1, 2);

static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

/* Adds a step option; line is owned by opt from here on, even on failure. */
static int push_step(struct cli_options *opt, const char *option, const char *arg, char *line)
{
    if (!line) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if (opt->nsteps == opt->capsteps) {
        size_t cap = opt->capsteps ? 2 * opt->capsteps : 8;
        struct cli_step *steps = NULL;
        if (cap <= SIZE_MAX / sizeof *steps)
            steps = realloc(opt->steps, cap * sizeof *steps);
        if (!steps) {
            free(line);
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        opt->steps = steps;
        opt->capsteps = cap;
    }
    opt->steps[opt->nsteps] = (struct cli_step){.option = option, .arg = arg, .line = line};
    opt->nsteps++;
    return CLI_EXIT_OK;
}

/* --step 'LINE': exactly one line, so a reported column is unambiguous. */
int cli_add_step(struct cli_options *opt, const char *arg)
{
    if (strpbrk(arg, "\n\r"))
        return cli_usage_error("--step: give one step per --step (the value has a line break)");
    /* Blank or a comment: a preset's empty line is fine, an option that
     * adds no step is a mistake. */
    const char *first = arg + strspn(arg, " \t");
    if (*first == '\0' || *first == '#')
        return cli_usage_error("--step '%s': no step (give a step name, as in 'smooth 4')", arg);
    return push_step(opt, "--step", arg, format("%s", arg));
}

/* --fill P: P percent walls, a decimal with an optional fraction. */
int cli_add_fill(struct cli_options *opt, const char *arg)
{
    int rc = cli_check_percentage("--fill", arg);
    if (rc != CLI_EXIT_OK)
        return rc;
    return push_step(opt, "--fill", arg, format("fill %s", arg));
}

/* --generations N:R1,R2 -> "generations N r1=R1 r2=R2", the numbers as
 * typed (R2 may be negative). */
int cli_add_generations(struct cli_options *opt, const char *arg)
{
    size_t nn = cli_digit_span(arg);
    const char *r1 = NULL, *r2 = NULL;
    size_t n1 = 0, n2 = 0;
    size_t sign = 0; /* 1 if R2 has a minus sign */

    if (nn > 0 && arg[nn] == ':') {
        r1 = arg + nn + 1;
        n1 = cli_digit_span(r1);
        if (n1 > 0 && r1[n1] == ',') {
            r2 = r1 + n1 + 1;
            sign = *r2 == '-' ? 1 : 0;
            n2 = cli_digit_span(r2 + sign);
        }
    }
    if (n2 == 0 || r2[sign + n2] != '\0')
        return cli_usage_error("--generations: '%s' is not N:R1,R2 (for example 5:5,-1)", arg);
    return push_step(opt, "--generations", arg,
                     format("generations %.*s r1=%.*s r2=%s", (int)nn, arg, (int)n1, r1, r2));
}

/* --reach X,Y or --reach entrance: one more start of the reach step. */
int cli_add_reach_start(struct cli_options *opt, const char *arg)
{
    size_t nx = cli_digit_span(arg);
    size_t ny = nx > 0 && arg[nx] == ',' ? cli_digit_span(arg + nx + 1) : 0;
    if (strcmp(arg, "entrance") != 0 && (ny == 0 || arg[nx + 1 + ny] != '\0'))
        return cli_usage_error("--reach: '%s' is not X,Y or entrance (for example 12,7)", arg);
    char *from = opt->reach_from ? format("%s;%s", opt->reach_from, arg) : format("%s", arg);
    if (!from) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    free(opt->reach_from);
    opt->reach_from = from;
    return CLI_EXIT_OK;
}

int cli_set_moves(struct cli_options *opt, const char *arg)
{
    int rc = cli_check_integer("--moves", arg);
    if (rc == CLI_EXIT_OK)
        opt->moves = arg;
    return rc;
}

/* `reach from=... [moves=M]` (docs/reach.md): what the library reports
 * from the column of M on is about --moves. */
int cli_finish_reach(struct cli_options *opt)
{
    if (!opt->reach_from) {
        if (opt->moves)
            return cli_usage_error("--moves needs --reach");
        return CLI_EXIT_OK;
    }
    char *line = opt->moves ? format("reach from=%s moves=%s", opt->reach_from, opt->moves)
                            : format("reach from=%s", opt->reach_from);
    int rc = push_step(opt, "--reach", opt->reach_from, line);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (opt->moves) {
        struct cli_step *step = &opt->steps[opt->nsteps - 1];
        step->tail_option = "--moves";
        step->tail_arg = opt->moves;
        step->tail_column = (int)(strlen(line) - strlen(opt->moves)) + 1;
    }
    opt->has_reach = 1;
    return CLI_EXIT_OK;
}

/* A diagnostic of the library's preset parser as the usage error of
 * option 'arg' (only --step's value is what the parser saw, so only it
 * gets a column), or running out of memory. */
static int line_error(const char *option, const char *arg, cg_status st, const cg_diag *diag)
{
    const char *why = diag->message[0] ? diag->message : cg_strerror(st);

    if (st == CG_ENOMEM) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if (strcmp(option, "--step") == 0 && diag->column > 0)
        return cli_usage_error("--step '%s': column %d: %s", arg, diag->column, why);
    return cli_usage_error("%s '%s': %s", option, arg, why);
}

int cli_append_steps(cg_pipeline *pipeline, const struct cli_options *opt)
{
    for (size_t i = 0; i < opt->nsteps; i++) {
        const struct cli_step *step = &opt->steps[i];
        cg_diag diag = {0};
        cg_status st = cg_pipeline_parse(pipeline, step->line, strlen(step->line), &diag);

        if (st == CG_OK)
            continue;
        if (step->tail_option && diag.column >= step->tail_column)
            return line_error(step->tail_option, step->tail_arg, st, &diag);
        return line_error(step->option, step->arg, st, &diag);
    }
    return CLI_EXIT_OK;
}

int cli_check_line(const char *option, const char *arg, cg_pipeline **scratch, const char *fmt, ...)
{
    cg_pipeline *pipeline = NULL;
    cg_diag diag = {0};
    va_list ap;

    *scratch = NULL;
    va_start(ap, fmt);
    char *line = vformat(fmt, ap);
    va_end(ap);
    if (!line || cg_pipeline_new(&pipeline) != CG_OK) {
        free(line);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    cg_status st = cg_pipeline_parse(pipeline, line, strlen(line), &diag);
    free(line);
    if (st != CG_OK) {
        cg_pipeline_free(pipeline);
        return line_error(option, arg, st, &diag);
    }
    *scratch = pipeline;
    return CLI_EXIT_OK;
}

int cli_add_setting(struct cli_options *opt, const char *arg)
{
    if (!strchr(arg, '='))
        return cli_usage_error("-D '%s': a setting is NAME=VALUE, e.g. -D poi.count=4", arg);
    if (opt->nsettings == opt->capsettings) {
        size_t cap = opt->capsettings ? 2 * opt->capsettings : 8;
        const char **grown = NULL;
        if (cap <= SIZE_MAX / sizeof *grown)
            grown = realloc(opt->settings, cap * sizeof *grown);
        if (!grown) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        opt->settings = grown;
        opt->capsettings = cap;
    }
    opt->settings[opt->nsettings++] = arg;
    return CLI_EXIT_OK;
}

int cli_apply_settings(const struct cli_options *opt, const char *text, size_t len, char **out,
                       size_t *out_len)
{
    size_t cap = len;
    for (size_t i = 0; i < opt->nsettings; i++) {
        size_t more = strlen(opt->settings[i]) + 3; /* cg_preset_apply's bound */
        if (cap > SIZE_MAX - more - 1) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        cap += more;
    }
    *out = malloc(cap + 1);
    if (!*out) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    cg_diag diag = {0};
    cg_status st = cg_preset_apply(text, len, opt->settings, opt->nsettings, *out, cap, out_len,
                                   &diag);
    if (st == CG_OK) {
        (*out)[*out_len] = '\0';
        return CLI_EXIT_OK;
    }
    free(*out);
    *out = NULL;
    if (st == CG_EINVAL)
        return cli_usage_error("-D %s", diag.message);
    cli_error("%s", diag.message[0] ? diag.message : cg_strerror(st));
    return CLI_EXIT_FAILURE;
}

