/* fuzz_common.h - helpers shared by the libFuzzer targets in tests/fuzz/.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput. Built with clang and
 * -fsanitize=fuzzer,address,undefined (CAVEGEN_FUZZ) it is a fuzzer; built
 * with replay.c by any compiler it is a test that feeds the kept corpus and
 * crash reproducers back through the same function (docs/testing.md).
 *
 * A broken invariant calls fuzz_fail(), which prints why and aborts: libFuzzer
 * saves the input as a crash, and the replay test fails.
 */
#ifndef CG_FUZZ_COMMON_H
#define CG_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavegen/cavegen.h"
#include "../grid_equal.h" /* tu_grids_equal, tu_cells_equal */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_fail(...)                                                                    \
    do {                                                                                  \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                              \
        abort();                                                                          \
    } while (0)

#define fuzz_check(cond)                                                                  \
    do {                                                                                  \
        if (!(cond))                                                                      \
            fuzz_fail("check failed: %s", #cond);                                         \
    } while (0)

/* ------------------------------------------------------- memory sink */

typedef struct fuzz_buf {
    unsigned char *data;
    size_t len, cap;
    size_t fail_after; /* nonzero: the write that would pass this many bytes fails */
} fuzz_buf;

/* A cg_write_fn into a growing buffer. */
static inline int fuzz_buf_write(void *ctx, const void *data, size_t len)
{
    fuzz_buf *b = ctx;
    if (b->fail_after && b->len + len > b->fail_after)
        return 1;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap *= 2;
        unsigned char *p = realloc(b->data, cap);
        if (!p)
            fuzz_fail("out of memory in the test sink");
        b->data = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static inline void fuzz_buf_free(fuzz_buf *b)
{
    free(b->data);
    *b = (fuzz_buf){0};
}

/* ------------------------------------------------------ text checks */

/* Well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF). */
static inline int fuzz_utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            k = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            k = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return 0;
        }
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* A strict JSON (RFC 8259) validator: recursive descent over one value. */
typedef struct fuzz_json {
    const unsigned char *s;
    size_t n, i;
    int depth;
} fuzz_json;

static inline void fuzz_json_ws(fuzz_json *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
                           j->s[j->i] == '\r'))
        j->i++;
}

static inline int fuzz_json_lit(fuzz_json *j, const char *lit)
{
    size_t l = strlen(lit);
    if (j->n - j->i < l || memcmp(j->s + j->i, lit, l) != 0)
        return 0;
    j->i += l;
    return 1;
}

static inline int fuzz_json_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int fuzz_json_string(fuzz_json *j)
{
    if (j->i >= j->n || j->s[j->i] != '"')
        return 0;
    j->i++;
    while (j->i < j->n) {
        unsigned char c = j->s[j->i++];
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (j->i >= j->n)
                return 0;
            c = j->s[j->i++];
            if (c == 'u') {
                for (int k = 0; k < 4; k++)
                    if (j->i >= j->n || !fuzz_json_hex(j->s[j->i++]))
                        return 0;
            } else if (!strchr("\"\\/bfnrt", c) || c == '\0') {
                return 0;
            }
        }
    }
    return 0;
}

static inline int fuzz_json_number(fuzz_json *j)
{
    size_t start = j->i;
    if (j->i < j->n && j->s[j->i] == '-')
        j->i++;
    if (j->i >= j->n)
        return 0;
    if (j->s[j->i] == '0') {
        j->i++;
    } else if (j->s[j->i] >= '1' && j->s[j->i] <= '9') {
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
            j->i++;
    } else {
        return 0;
    }
    if (j->i < j->n && j->s[j->i] == '.') {
        size_t d = ++j->i;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
            j->i++;
        if (j->i == d)
            return 0;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
            j->i++;
        size_t d = j->i;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
            j->i++;
        if (j->i == d)
            return 0;
    }
    return j->i > start;
}

static inline int fuzz_json_value(fuzz_json *j)
{
    if (++j->depth > 64)
        return 0;
    fuzz_json_ws(j);
    if (j->i >= j->n)
        return 0;
    int ok = 0;
    unsigned char c = j->s[j->i];
    if (c == '{' || c == '[') {
        unsigned char close = c == '{' ? '}' : ']';
        j->i++;
        fuzz_json_ws(j);
        if (j->i < j->n && j->s[j->i] == close) {
            j->i++;
            ok = 1;
        } else {
            for (;;) {
                if (c == '{') {
                    fuzz_json_ws(j);
                    if (!fuzz_json_string(j))
                        break;
                    fuzz_json_ws(j);
                    if (j->i >= j->n || j->s[j->i++] != ':')
                        break;
                }
                if (!fuzz_json_value(j))
                    break;
                fuzz_json_ws(j);
                if (j->i < j->n && j->s[j->i] == ',') {
                    j->i++;
                    continue;
                }
                if (j->i < j->n && j->s[j->i] == close) {
                    j->i++;
                    ok = 1;
                }
                break;
            }
        }
    } else if (c == '"') {
        ok = fuzz_json_string(j);
    } else if (c == 't') {
        ok = fuzz_json_lit(j, "true");
    } else if (c == 'f') {
        ok = fuzz_json_lit(j, "false");
    } else if (c == 'n') {
        ok = fuzz_json_lit(j, "null");
    } else {
        ok = fuzz_json_number(j);
    }
    j->depth--;
    return ok;
}

/* The whole buffer is one JSON value (with surrounding white space) in UTF-8. */
static inline int fuzz_json_valid(const unsigned char *s, size_t n)
{
    fuzz_json j = {s, n, 0, 0};
    if (!fuzz_utf8_valid(s, n) || !fuzz_json_value(&j))
        return 0;
    fuzz_json_ws(&j);
    return j.i == n;
}

#endif
