/* messages.h - the messages of the cavegen tool and its exit statuses.
 *
 * Every message is one line on stderr starting "cavegen: "; a usage error
 * adds the line that points to --help (docs/cli.md). This file depends on
 * nothing else of the tool, so every other file may use it; the options
 * fuzz target (tests/fuzz/fuzz_options.c) links its own recorders of this
 * API instead of messages.c.
 */
#ifndef CAVEGEN_CLI_MESSAGES_H
#define CAVEGEN_CLI_MESSAGES_H

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

/* Called before each message (NULL: nothing), so that the progress bar
 * can erase its line first and a message never joins it. */
void cli_set_message_hook(void (*before)(void *ctx), void *ctx);

/* One line on stderr: "cavegen: " + the formatted text. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* cli_error, then the line that points to --help. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* "NAME:LINE:COL: message" (the line and column when diag has them) for
 * malformed preset text or maps; NAME is pre + name + post, so that a
 * built-in preset can be named as its source file. The message is diag's,
 * else cg_strerror(status). */
void cli_text_error(const char *pre, const char *name, const char *post, const cg_diag *diag,
                    cg_status status);

#endif
