/* pattern.h - the output names of a batch (-n): a printf-style pattern
 * with exactly one %d conversion (flags '-', '+', ' ', '0', a width up to 64, a
 * precision 1 to 64; "%%" is a percent sign). Depends on the C library
 * only (tests/test_batch.c checks it against printf). */
#ifndef CAVEGEN_CLI_PATTERN_H
#define CAVEGEN_CLI_PATTERN_H

#include <stdint.h>

/* Returns 0, or -1 with *why a static reason. A pattern that passes gives
 * every index a different, nonempty name, also once normalised ("." and
 * ".." components, repeated slashes): its %d prints at least one digit
 * (precision 0 is refused) and no ".." after it climbs out of the folder
 * or name holding it. */
int cli_pattern_check(const char *pattern, const char **why);

/* A new string with the conversion replaced by index (NULL: out of
 * memory); the pattern must pass cli_pattern_check. */
char *cli_pattern_format(const char *pattern, uint64_t index);

/* The checks of a file name that need no file system: 0, or ENOENT for an
 * empty name, ENAMETOOLONG if a folder or file name of it is longer than
 * NAME_MAX or the whole reaches PATH_MAX. */
int cli_name_check(const char *name);

#endif
