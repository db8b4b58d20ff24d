/* messages.c - the message printers of the cavegen tool (messages.h). */
#include <stdarg.h>
#include <stdio.h>

#include "messages.h"

static void (*hook)(void *ctx);
static void *hook_ctx;

void cli_set_message_hook(void (*before)(void *ctx), void *ctx)
{
    hook = before;
    hook_ctx = ctx;
}

static void vmessage(const char *fmt, va_list ap) CLI_PRINTF(1, 0);

static void vmessage(const char *fmt, va_list ap)
{
    if (hook)
        hook(hook_ctx);
    fputs("cavegen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    fputs("Try 'cavegen --help' for more information.\n", stderr);
    return CLI_EXIT_USAGE;
}

void cli_text_error(const char *pre, const char *name, const char *post, const cg_diag *diag,
                    cg_status status)
{
    const char *why = diag->message[0] ? diag->message : cg_strerror(status);

    if (diag->line > 0 && diag->column > 0)
        cli_error("%s%s%s:%d:%d: %s", pre, name, post, diag->line, diag->column, why);
    else if (diag->line > 0)
        cli_error("%s%s%s:%d: %s", pre, name, post, diag->line, why);
    else
        cli_error("%s%s%s: %s", pre, name, post, why);
}
