/* step_options.h - the options that add steps to the pipeline: --step,
 * --fill, --generations, and --reach with --moves.
 *
 * Each becomes one line of the preset language (docs/presets.md) that the
 * library parses: its parser is the one place that checks the values'
 * ranges, and its diagnostic becomes the option's usage error, as
 * "OPTION 'VALUE': message". Here only the shape of a value is checked
 * (N:R1,R2, X,Y, a number), so that it cannot become more than the one
 * step it stands for. The same reporting serves other values whose range
 * the library's preset parser owns (cli_check_line: -W, -H, --size).
 */
#ifndef CAVEGEN_CLI_STEP_OPTIONS_H
#define CAVEGEN_CLI_STEP_OPTIONS_H

#include "cavegen/cavegen.h"
#include "cli.h"
#include "messages.h"

/* Each adds its step to opt->steps (in command-line order), or records
 * --reach's start or --moves' budget. arg points into argv. Return
 * CLI_EXIT_OK, or an exit status after the message. */
int cli_add_step(struct cli_options *opt, const char *arg);        /* --step 'LINE' */
int cli_add_fill(struct cli_options *opt, const char *arg);        /* --fill P */
int cli_add_generations(struct cli_options *opt, const char *arg); /* --generations N:R1,R2 */
int cli_add_reach_start(struct cli_options *opt, const char *arg); /* --reach X,Y|entrance */
int cli_set_moves(struct cli_options *opt, const char *arg);       /* --moves M */
int cli_add_setting(struct cli_options *opt, const char *arg);     /* -D NAME=VALUE */

/* The preset text with the -D settings applied (cg_preset_apply), in a new
 * buffer *out of *out_len bytes (the caller frees it); without settings a
 * copy. Returns CLI_EXIT_OK, or an exit status after the message: a wrong
 * setting is a usage error quoting it. */
int cli_apply_settings(const struct cli_options *opt, const char *text, size_t len, char **out,
                       size_t *out_len);

/* After the other options: the one `reach` step of the --reach starts and
 * --moves, last of opt->steps (opt->has_reach). --moves without --reach is
 * a usage error. */
int cli_finish_reach(struct cli_options *opt);

/* Appends the step options to pipeline in command-line order. Returns
 * CLI_EXIT_OK, or an exit status after the library's diagnostic as the
 * usage error of the option that gave the step. */
int cli_append_steps(cg_pipeline *pipeline, const struct cli_options *opt);

/* Parses the line printed from fmt, built from option's value arg, on a
 * new pipeline, returned in *scratch (the caller frees it) so that what
 * the library parsed can be read back. Returns CLI_EXIT_OK, or an exit
 * status after the message (*scratch NULL). */
int cli_check_line(const char *option, const char *arg, cg_pipeline **scratch, const char *fmt, ...)
    CLI_PRINTF(4, 5);

#endif
