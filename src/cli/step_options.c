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
    return push_step(opt, "--step", arg, format("%s", arg));
}

/* --fill P: P percent walls, a decimal with an optional fraction. */
int cli_add_fill(struct cli_options *opt, const char *arg)
{
    int rc = cli_check_percentage("--fill", arg);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (strtod(arg, NULL) > 100.0)
        return cli_usage_error("--fill: '%s' is not in 0..100", arg);
    return push_step(opt, "--fill", arg, format("fill %s", arg));
}

/* --generations N:R1,R2 -> "generations N r1=R1 r2=R2" (SPEC 3.1 ranges). */
int cli_add_generations(struct cli_options *opt, const char *arg)
{
    size_t nn = cli_digit_span(arg);
    const char *r1s = NULL, *r2s = NULL;
    size_t n1 = 0, n2 = 0;
    size_t negative = 0; /* 1 if R2 has a minus sign: the sign's length */
    uint64_t r1 = 0, r2 = 0;

    if (nn > 0 && arg[nn] == ':') {
        r1s = arg + nn + 1;
        n1 = cli_digit_span(r1s);
        if (n1 > 0 && r1s[n1] == ',') {
            r2s = r1s + n1 + 1;
            negative = *r2s == '-' ? 1 : 0;
            n2 = cli_digit_span(r2s + negative);
        }
    }
    if (n2 == 0 || r2s[negative + n2] != '\0')
        return cli_usage_error("--generations: '%s' is not N:R1,R2 (for example 5:5,-1)", arg);
    if (cli_convert_digits(r1s, n1, &r1) != 0 || r1 > 9)
        return cli_usage_error("--generations: R1 '%.*s' in '%s' is not in 0..9", (int)n1, r1s,
                               arg);
    if (cli_convert_digits(r2s + negative, n2, &r2) != 0 || r2 > (negative ? 1u : 21u))
        return cli_usage_error("--generations: R2 '%s' in '%s' is not in -1..21", r2s, arg);

    /* N is passed through as typed: its range belongs to the preset parser. */
    return push_step(opt, "--generations", arg,
                     format("generations %.*s r1=%d r2=%d", (int)nn, arg, (int)r1,
                            negative ? -(int)r2 : (int)r2));
}

/* --reach X,Y or --reach entrance: one more start of the reach step. */
int cli_add_reach_start(struct cli_options *opt, const char *arg)
{
    size_t nx = cli_digit_span(arg);
    size_t ny = nx > 0 && arg[nx] == ',' ? cli_digit_span(arg + nx + 1) : 0;
    if (strcmp(arg, "entrance") != 0 && (ny == 0 || arg[nx + 1 + ny] != '\0'))
        return cli_usage_error("--reach: '%s' is not X,Y or entrance (for example 12,7)", arg);
    if (opt->reach_count == 32)
        return cli_usage_error("--reach: at most 32 starts");
    char *from = opt->reach_from ? format("%s;%s", opt->reach_from, arg) : format("%s", arg);
    if (!from) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    free(opt->reach_from);
    opt->reach_from = from;
    opt->reach_count++;
    return CLI_EXIT_OK;
}

int cli_set_moves(struct cli_options *opt, const char *arg)
{
    uint64_t value = 0;
    opt->moves = arg;
    return cli_parse_number("--moves", arg, 0, INT32_MAX, &value);
}

/* `reach from=... [moves=M]` (docs/reach.md). */
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
    opt->has_reach = rc == CLI_EXIT_OK;
    return rc;
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

        if (st != CG_OK)
            return line_error(step->option, step->arg, st, &diag);
    }
    return CLI_EXIT_OK;
}
