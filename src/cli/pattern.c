/* pattern.c - the output names of a batch: a printf-style pattern with one
 * %d (pattern.h). Formatted here, not by snprintf: the format comes from
 * the command line, and the index may be beyond an int. */
#define _POSIX_C_SOURCE 200809L /* NAME_MAX, PATH_MAX */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

#define PATTERN_MAX_WIDTH 64 /* width and precision of the %d */

/* One %d conversion as printf reads it: flags, width, precision. */
struct conversion {
    int minus, plus, space, zero;
    int width, precision; /* -1: none */
};

/* The decimal at p, a width or a precision: returns its digits' count;
 * *value stops growing once over PATTERN_MAX_WIDTH, so no run of digits
 * overflows it. */
static size_t read_bounded(const char *p, int *value)
{
    size_t n = 0;
    int v = 0;
    for (; p[n] >= '0' && p[n] <= '9'; n++)
        if (v <= PATTERN_MAX_WIDTH)
            v = v * 10 + (p[n] - '0');
    *value = v;
    return n;
}

/* Parses the conversion after a '%' at p. Returns its length up to and
 * including the 'd', or 0 (*why set) if it is not a %d of the accepted
 * shape. */
static size_t parse_conversion(const char *p, struct conversion *c, const char **why)
{
    size_t i = 0;
    memset(c, 0, sizeof *c);
    c->width = c->precision = -1;
    for (;; i++) {
        if (p[i] == '-')
            c->minus = 1;
        else if (p[i] == '+')
            c->plus = 1;
        else if (p[i] == ' ')
            c->space = 1;
        else if (p[i] == '0')
            c->zero = 1;
        else
            break;
    }
    int v = 0;
    size_t n = read_bounded(p + i, &v);
    if (n > 0) {
        if (v > PATTERN_MAX_WIDTH) {
            *why = "a %d's width must be at most 64";
            return 0;
        }
        c->width = v;
        i += n;
    }
    if (p[i] == '.') {
        n = read_bounded(p + i + 1, &v);
        if (v > PATTERN_MAX_WIDTH) {
            *why = "a %d's precision must be at most 64";
            return 0;
        }
        c->precision = v; /* "%.d" is "%.0d" */
        i += 1 + n;
    }
    if (p[i] != 'd') {
        *why = "a '%' must start a %d conversion (flags - + 0 or space, a width, a "
               "precision: %04d) or be written %%";
        return 0;
    }
    /* Precision 0 prints no digit for 0: map 0 would get an empty name, or
     * "dir/" or "/x" from "dir/%.0d" or "%.0d/x". */
    if (c->precision == 0) {
        *why = "a %d's precision must be at least 1 (with 0, map 0 has no digit)";
        return 0;
    }
    return i + 1;
}

/* Nonzero if a ".." after the folder or name holding the conversion at
 * conv (its '%') climbs above it: the number then vanishes from the path once
 * normalised ("c/%d/../same.txt"), and every map would get the same file. */
static int number_cancelled(const char *conv)
{
    const char *p = strchr(conv, '/');
    long depth = 0; /* folders below the one holding the number */
    while (p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return 1;
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p = p[n] ? p + n : NULL;
    }
    return 0;
}

int cli_pattern_check(const char *pattern, const char **why)
{
    int conversions = 0;
    const char *conv = NULL;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        struct conversion c;
        size_t n = parse_conversion(p + 1, &c, why);
        if (n == 0)
            return -1;
        conversions++;
        conv = p;
        p += n;
    }
    if (conversions != 1) {
        *why = conversions ? "it has more than one %d" : "it has no %d to number the maps";
        return -1;
    }
    /* Each map gets its own name: the %d prints at least one digit, so the
     * folder or name holding it differs between any two maps, and is never
     * empty, "." or ".."; it stays distinct unless a ".." removes it. */
    if (number_cancelled(conv)) {
        *why = "a '..' after the %d removes it from the path, so every map would get the "
               "same name";
        return -1;
    }
    return 0;
}

/* printf's %d of a nonnegative value, as C11 7.21.6.1 defines it. */
static size_t format_conversion(char *out, const struct conversion *c, uint64_t value)
{
    char digits[24];
    size_t nd = 0, len = 0;
    do {
        digits[nd++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (c->precision == 0 && nd == 1 && digits[0] == '0')
        nd = 0; /* "%.0d" of 0 prints no digit */
    size_t body = nd;
    if (c->precision > 0 && (size_t)c->precision > body)
        body = (size_t)c->precision;
    size_t sign = c->plus || c->space ? 1 : 0;
    size_t width = c->width > 0 ? (size_t)c->width : 0;
    size_t pad = width > sign + body ? width - sign - body : 0;
    int zeros = c->zero && !c->minus && c->precision < 0;
    if (!c->minus && !zeros)
        for (size_t i = 0; i < pad; i++)
            out[len++] = ' ';
    if (sign)
        out[len++] = c->plus ? '+' : ' ';
    if (zeros)
        for (size_t i = 0; i < pad; i++)
            out[len++] = '0';
    for (size_t i = nd; i < body; i++)
        out[len++] = '0';
    while (nd > 0)
        out[len++] = digits[--nd];
    if (c->minus)
        for (size_t i = 0; i < pad; i++)
            out[len++] = ' ';
    return len;
}

char *cli_pattern_format(const char *pattern, uint64_t index)
{
    /* The conversion takes at most 1 + 64 + 20 characters. */
    size_t cap = strlen(pattern) + 2 * PATTERN_MAX_WIDTH + 24;
    char *out = malloc(cap);
    size_t len = 0;
    const char *why = NULL;
    if (!out)
        return NULL;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            out[len++] = *p;
            continue;
        }
        if (p[1] == '%') {
            out[len++] = '%';
            p++;
            continue;
        }
        struct conversion c;
        size_t n = parse_conversion(p + 1, &c, &why);
        len += format_conversion(out + len, &c, index);
        p += n;
    }
    out[len] = '\0';
    return out;
}

int cli_name_check(const char *name)
{
    if (!name[0])
        return ENOENT;
    if (strlen(name) >= PATH_MAX)
        return ENAMETOOLONG;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n > NAME_MAX)
            return ENAMETOOLONG;
        p += n;
        p += strspn(p, "/");
    }
    return 0;
}
