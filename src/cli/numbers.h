/* numbers.h - the numbers in option values.
 *
 * Two kinds: values whose range is the command line's own (--seed, -n, -j,
 * --max-attempts, --max-memory, --chunk) are parsed and range-checked
 * here; values that the library checks (sizes, percentages, --moves: see
 * step_options.h) only have their shape checked here, so that nothing but
 * a number reaches the library's parser, which checks the range. Every
 * failure is a usage error (messages.h) naming the option and the value.
 */
#ifndef CAVEGEN_CLI_NUMBERS_H
#define CAVEGEN_CLI_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* The length of the run of decimal digits at s. */
size_t cli_digit_span(const char *s);

/* Converts the n digits at s (n = cli_digit_span(s)). Returns 0, or -1 on
 * overflow. */
int cli_convert_digits(const char *s, size_t n, uint64_t *value);

/* A whole value as an unsigned decimal in lo..hi: digits only, no sign,
 * space or other character. Returns CLI_EXIT_OK or CLI_EXIT_USAGE. */
int cli_parse_number(const char *option, const char *s, uint64_t lo, uint64_t hi, uint64_t *value);

/* The shape of an integer (an optional '-', digits). CLI_EXIT_OK or
 * CLI_EXIT_USAGE. */
int cli_check_integer(const char *option, const char *s);

/* The shape of a percentage (digits, optionally '.' and digits).
 * CLI_EXIT_OK or CLI_EXIT_USAGE. */
int cli_check_percentage(const char *option, const char *s);

/* The shape WxH (digits, 'x' or 'X', digits); *wlen is W's length.
 * CLI_EXIT_OK or CLI_EXIT_USAGE. */
int cli_check_dimensions(const char *option, const char *s, size_t *wlen);

/* A memory size: digits and one of K, M, G, T (powers of 1024), with an
 * optional "iB" or "B" after it; 1K..(2^24-1)T. CLI_EXIT_OK or
 * CLI_EXIT_USAGE. */
int cli_parse_memory(const char *option, const char *s, uint64_t *bytes);

/* --chunk CX,CY: two signed decimals, each within 2^31 - 1 chunks of the
 * origin. CLI_EXIT_OK or CLI_EXIT_USAGE. */
int cli_parse_chunk(const char *option, const char *s, int64_t *cx, int64_t *cy);

#endif
