/* numbers.c - the numbers in option values (numbers.h). Decimal only and
 * ASCII only, so a value never depends on the locale. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "numbers.h"

#define CHUNK_MAX INT32_MAX /* |CX|, |CY|: chunks a side of the origin */

size_t cli_digit_span(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

/* n = cli_digit_span(s) > 0, so strtoull stops exactly there. */
int cli_convert_digits(const char *s, size_t n, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || end != s + n)
        return -1;
    *value = (uint64_t)v;
    return 0;
}

/* strtoull alone would accept " -1" as 18446744073709551615. */
int cli_parse_number(const char *option, const char *s, uint64_t lo, uint64_t hi, uint64_t *value)
{
    size_t n = cli_digit_span(s);
    uint64_t v = 0;

    if (n == 0 || s[n] != '\0') {
        /* A negative number is a number, just not in the range. */
        if (s[0] == '-' && n == 0 && cli_digit_span(s + 1) > 0 &&
            s[1 + cli_digit_span(s + 1)] == '\0')
            return cli_usage_error("%s: '%s' is not in %" PRIu64 "..%" PRIu64, option, s, lo, hi);
        return cli_usage_error("%s: '%s' is not a number in %" PRIu64 "..%" PRIu64, option, s, lo,
                               hi);
    }
    if (cli_convert_digits(s, n, &v) != 0 || v < lo || v > hi)
        return cli_usage_error("%s: '%s' is not in %" PRIu64 "..%" PRIu64, option, s, lo, hi);
    *value = v;
    return CLI_EXIT_OK;
}

int cli_check_integer(const char *option, const char *s)
{
    size_t sign = s[0] == '-' ? 1 : 0;
    size_t n = cli_digit_span(s + sign);
    if (n == 0 || s[sign + n] != '\0')
        return cli_usage_error("%s: '%s' is not a number", option, s);
    return CLI_EXIT_OK;
}

int cli_check_percentage(const char *option, const char *s)
{
    size_t n = cli_digit_span(s);
    size_t len = n;

    if (n > 0 && s[n] == '.' && cli_digit_span(s + n + 1) > 0)
        len = n + 1 + cli_digit_span(s + n + 1);
    if (n == 0 || s[len] != '\0')
        return cli_usage_error("%s: '%s' is not a number in 0..100", option, s);
    return CLI_EXIT_OK;
}

int cli_check_dimensions(const char *option, const char *s, size_t *wlen)
{
    size_t nw = cli_digit_span(s);
    size_t nh = nw > 0 && (s[nw] == 'x' || s[nw] == 'X') ? cli_digit_span(s + nw + 1) : 0;

    if (nw == 0 || nh == 0 || s[nw + 1 + nh] != '\0')
        return cli_usage_error("%s: '%s' is not WxH (for example 80x50)", option, s);
    *wlen = nw;
    return CLI_EXIT_OK;
}

/* A unit is required: a bare 512 would be bytes to some readers and MiB
 * to others. */
int cli_parse_memory(const char *option, const char *s, uint64_t *bytes)
{
    size_t n = cli_digit_span(s);
    unsigned shift = 0;
    uint64_t v = 0;

    switch (n > 0 ? s[n] : '\0') {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    case 'T':
    case 't':
        shift = 40;
        break;
    default:
        break;
    }
    const char *rest = shift ? s + n + 1 : "";
    if (!shift || (rest[0] && strcmp(rest, "B") != 0 && strcmp(rest, "iB") != 0))
        return cli_usage_error("%s: '%s' is not a size such as 512M or 8G", option, s);
    if (cli_convert_digits(s, n, &v) != 0 || v == 0 || v > (UINT64_MAX >> shift))
        return cli_usage_error("%s: '%s' is not in 1K..%" PRIu64 "T", option, s, UINT64_MAX >> 40);
    *bytes = v << shift;
    return CLI_EXIT_OK;
}

/* One signed decimal of --chunk: 0 with *len and *value set, -1 if there
 * is no number at s, 1 if it is out of range. */
static int parse_signed(const char *s, size_t *len, int64_t *value)
{
    size_t neg = s[0] == '-' ? 1 : 0;
    size_t n = cli_digit_span(s + neg);
    uint64_t v = 0;
    if (n == 0)
        return -1;
    *len = neg + n;
    if (cli_convert_digits(s + neg, n, &v) != 0 || v > CHUNK_MAX)
        return 1;
    *value = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int cli_parse_chunk(const char *option, const char *s, int64_t *cx, int64_t *cy)
{
    size_t nx = 0, ny = 0;
    int rx = parse_signed(s, &nx, cx);
    int ry = rx >= 0 && s[nx] == ',' ? parse_signed(s + nx + 1, &ny, cy) : -1;
    if (rx < 0 || ry < 0 || s[nx + 1 + ny] != '\0')
        return cli_usage_error("%s: '%s' is not CX,CY (for example -3,2)", option, s);
    if (rx > 0 || ry > 0)
        return cli_usage_error("%s: '%s': chunk numbers must be in %d..%d", option, s, -CHUNK_MAX,
                               CHUNK_MAX);
    return CLI_EXIT_OK;
}
