/* io/sink.c - the buffered sink of the text writers (io/sink.h). */
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/mem.h"
#include "io/sink.h"

#define SINK_BYTES ((size_t)1 << 16)
#define RESERVE_MAX ((size_t)4096)

cg_status cg__sink_init(cg__sink *s, cg_write_fn write, void *ctx, cg_diag *diag)
{
    s->write = write;
    s->ctx = ctx;
    s->len = 0;
    s->cap = SINK_BYTES;
    s->status = CG_OK;
    s->buf = cg__malloc(SINK_BYTES);
    if (!s->buf) {
        s->cap = 0;
        s->status = CG_ENOMEM;
        cg__diag(diag, 0, 0, "out of memory");
    }
    return s->status;
}

void cg__sink_flush(cg__sink *s)
{
    if (s->status == CG_OK && s->len > 0 && s->write(s->ctx, s->buf, s->len) != 0)
        s->status = CG_EIO;
    s->len = 0;
}

cg_status cg__sink_finish(cg__sink *s, cg_diag *diag)
{
    cg__sink_flush(s);
    cg__free(s->buf);
    s->buf = NULL;
    s->cap = 0;
    if (s->status == CG_EIO)
        cg__diag(diag, 0, 0, "write failed");
    return s->status;
}

char *cg__sink_reserve(cg__sink *s, size_t n)
{
    if (s->status != CG_OK || n > RESERVE_MAX)
        return NULL;
    if (s->cap - s->len < n)
        cg__sink_flush(s);
    return s->status == CG_OK ? s->buf + s->len : NULL;
}

void cg__sink_bytes(cg__sink *s, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0 && s->status == CG_OK) {
        if (s->len == s->cap)
            cg__sink_flush(s);
        size_t n = s->cap - s->len < len ? s->cap - s->len : len;
        memcpy(s->buf + s->len, p, n);
        s->len += n;
        p += n;
        len -= n;
    }
}

void cg__sink_str(cg__sink *s, const char *str)
{
    cg__sink_bytes(s, str, strlen(str));
}

void cg__sink_u64(cg__sink *s, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[sizeof tmp - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    cg__sink_bytes(s, tmp + sizeof tmp - n, n);
}

void cg__sink_i64(cg__sink *s, int64_t v)
{
    if (v < 0) {
        cg__sink_bytes(s, "-", 1);
        /* -(v + 1) + 1 avoids overflowing on INT64_MIN. */
        cg__sink_u64(s, (uint64_t)(-(v + 1)) + 1);
    } else {
        cg__sink_u64(s, (uint64_t)v);
    }
}

/* The code point of the UTF-8 sequence at p (n > 0 bytes left), and its
 * length; a malformed, overlong or surrogate sequence, or one past
 * U+10FFFF, is one byte of U+FFFD (RFC 3629). */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1fu;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0fu;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07u;
        min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (n < len) {
        *cp = 0xfffd;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        v = v << 6 | (p[i] & 0x3fu);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
        *cp = 0xfffd;
        return 1;
    }
    *cp = v;
    return len;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD in UTF-8 */

void cg__sink_json_string(cg__sink *s, const char *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)text;
    cg__sink_bytes(s, "\"", 1);
    while (len > 0) {
        uint32_t cp;
        size_t n = utf8_next(p, len, &cp);
        if (cp == '"' || cp == '\\') {
            char e[2] = {'\\', (char)cp};
            cg__sink_bytes(s, e, 2);
        } else if (cp == '\n') {
            cg__sink_bytes(s, "\\n", 2);
        } else if (cp == '\t') {
            cg__sink_bytes(s, "\\t", 2);
        } else if (cp == '\r') {
            cg__sink_bytes(s, "\\r", 2);
        } else if (cp < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15]};
            cg__sink_bytes(s, e, 6);
        } else if (cp == 0xfffd && !(n == 3 && memcmp(p, replacement, 3) == 0)) {
            cg__sink_bytes(s, replacement, 3);
        } else {
            cg__sink_bytes(s, p, n);
        }
        p += n;
        len -= n;
    }
    cg__sink_bytes(s, "\"", 1);
}

void cg__sink_xml_text(cg__sink *s, const char *text, size_t len, int attr)
{
    const unsigned char *p = (const unsigned char *)text;
    while (len > 0) {
        uint32_t cp;
        size_t n = utf8_next(p, len, &cp);
        if (cp == '&')
            cg__sink_str(s, "&amp;");
        else if (cp == '<')
            cg__sink_str(s, "&lt;");
        else if (cp == '>')
            cg__sink_str(s, "&gt;"); /* so "]]>" never appears */
        else if (cp == '"' && attr)
            cg__sink_str(s, "&quot;");
        else if (cp == '\r')
            cg__sink_str(s, "&#13;"); /* a parser turns a raw CR into LF */
        else if ((cp == '\n' || cp == '\t') && attr)
            cg__sink_str(s, cp == '\n' ? "&#10;" : "&#9;"); /* else read back as spaces */
        else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0xfffe || cp == 0xffff ||
                 (cp == 0xfffd && !(n == 3 && memcmp(p, replacement, 3) == 0)))
            cg__sink_bytes(s, replacement, 3); /* not allowed in XML 1.0, or not UTF-8 */
        else
            cg__sink_bytes(s, p, n);
        p += n;
        len -= n;
    }
}
