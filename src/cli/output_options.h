/* output_options.h - the options that say what is written and how: -f,
 * --scale, --stats, and the format chosen once the options are read. */
#ifndef CAVEGEN_CLI_OUTPUT_OPTIONS_H
#define CAVEGEN_CLI_OUTPUT_OPTIONS_H

#include <stdint.h>

#include "cavegen/cavegen.h"
#include "cli.h"

/* Each returns CLI_EXIT_OK, or an exit status after the message. */

/* -f FORMAT: a name of the library's format table, any case. */
int cli_parse_format(const char *arg, cg_format *format);

/* --stats[=text|json]; arg NULL: text. */
int cli_parse_stats(const char *arg, enum cli_stats *stats);

/* --scale N: its range is the library's (cg_write checks it), asked with
 * a write of a 1x1 map; 0, the library's "default", is refused. */
int cli_parse_scale(const char *arg, uint32_t *scale);

/* After the options: the format (-f, else the output's extension, else
 * ASCII), and whether this output can take it: a batch on stdout must be
 * a stream format, PNG needs a build with PNG (a Tiled map in a file too,
 * for its tileset image), binary bytes do not go to a terminal.
 * have_format: -f was given. */
int cli_resolve_output(struct cli_options *opt, int have_format);

#endif
