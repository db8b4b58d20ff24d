/* fuzz_options.c - the command-line parser of the cavegen tool
 * (src/cli/options.c and the files that read its values) on arbitrary
 * argument vectors: the input is split at NUL bytes into argv[1..].
 *
 * The messages.h API (src/cli/messages.c in the tool) is implemented here
 * by recorders that keep the message instead of printing it; this file is
 * linked instead of messages.c. Invariants: the parser
 * never crashes or leaks (cli_options_free after every call); it returns
 * 0, 1 or 2; 2 comes with exactly one usage message, 1 with exactly one
 * runtime message (out of memory), 0 with none; a message is one line when
 * no argument holds a line break; an accepted command line has its values
 * in range and its step options parse.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdarg.h>

#include "cli.h"
#include "fuzz_common.h"
#include "messages.h"
#include "step_options.h"

#define MAX_ARGS 64

static int errors, usage_errors;
static char message[1024];

CLI_PRINTF(1, 0) static void record(const char *fmt, va_list ap)
{
    vsnprintf(message, sizeof message, fmt, ap);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap);
    va_end(ap);
    errors++;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap);
    va_end(ap);
    usage_errors++;
    return CLI_EXIT_USAGE;
}

void cli_text_error(const char *pre, const char *name, const char *post, const cg_diag *diag,
                    cg_status status)
{
    cli_error("%s%s%s: %s", pre, name, post,
              diag->message[0] ? diag->message : cg_strerror(status));
}

/* glibc's getopt keeps a pointer into the last argv (its position inside a
 * group like -qh) that only optind = 0 resets; the tool parses once per
 * process, the fuzzer many times with argv freed in between. */
static void reset_getopt(void)
{
    static char name[] = "cavegen";
    char *argv[] = {name, NULL};
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    while (getopt_long(1, argv, "", none, NULL) != -1)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    char *argv[MAX_ARGS + 2];
    static char name[] = "cavegen";
    int argc = 1, breaks = 0;

    fuzz_check(copy != NULL);
    if (size)
        memcpy(copy, data, size);
    copy[size] = '\0';
    argv[0] = name;
    for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
        argv[argc++] = copy + i;
        size_t l = strlen(copy + i);
        if (memchr(copy + i, '\n', l) || memchr(copy + i, '\r', l))
            breaks = 1;
        i += l + 1;
        if (i > size)
            break;
    }
    argv[argc] = NULL;

    reset_getopt();
    errors = usage_errors = 0;
    message[0] = '\0';
    struct cli_options opt;
    int rc = cli_parse_options(&opt, argc, argv);

    switch (rc) {
    case CLI_EXIT_OK:
        if (errors || usage_errors)
            fuzz_fail("success with a message: '%s'", message);
        break;
    case CLI_EXIT_USAGE:
        if (usage_errors != 1 || errors != 0)
            fuzz_fail("usage error with %d usage and %d other messages", usage_errors, errors);
        break;
    case CLI_EXIT_FAILURE:
        if (errors != 1 || usage_errors != 0)
            fuzz_fail("failure with %d messages and %d usage messages", errors, usage_errors);
        break;
    default:
        fuzz_fail("exit status %d", rc);
    }
    if (rc != CLI_EXIT_OK) {
        if (message[0] == '\0')
            fuzz_fail("an empty message");
        if (!breaks && strchr(message, '\n'))
            fuzz_fail("a message of more than one line: '%s'", message);
    }

    if (rc == CLI_EXIT_OK && opt.action == CLI_RUN) {
        fuzz_check(opt.scale >= 1 && opt.scale <= 64);
        fuzz_check(cg_format_name(opt.format) != NULL);
        fuzz_check(opt.width <= CG_MAX_DIM && opt.height <= CG_MAX_DIM);
        fuzz_check(opt.max_attempts <= CG_MAX_ATTEMPTS);
        fuzz_check(!(opt.input && (opt.width || opt.height)));
        fuzz_check(!opt.preset_builtin || !opt.preset_file);
        /* The step options were checked: they parse again. */
        cg_pipeline *p = NULL;
        fuzz_check(cg_pipeline_new(&p) == CG_OK);
        fuzz_check(cli_append_steps(p, &opt) == CLI_EXIT_OK);
        cg_pipeline_free(p);
    }
    if (rc == CLI_EXIT_OK && opt.action == CLI_SHOW_PRESET) {
        size_t len;
        fuzz_check(cg_preset_builtin(opt.show_name, &len) != NULL);
    }
    cli_options_free(&opt);
    free(copy);
    return 0;
}
