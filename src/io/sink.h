/* io/sink.h - a buffered byte sink for the text writers (io/json.c,
 * io/tiled.c): appends go to a 64 KiB buffer handed to the user's write
 * callback when full, so a map costs a few hundred callback calls, not one
 * per cell. The first failure (the callback's, or out of memory) sticks:
 * later appends do nothing and cg__sink_finish reports it, so writers need
 * not test every append. */
#ifndef CG_IO_SINK_H
#define CG_IO_SINK_H

#include "core/grid.h"

typedef struct cg__sink {
    cg_write_fn write;
    void *ctx;
    char *buf;
    size_t len, cap;
    cg_status status; /* CG_OK, or the first failure */
} cg__sink;

/* CG_ENOMEM (with diag) if the buffer cannot be allocated; the sink is then
 * still safe to finish. */
cg_status cg__sink_init(cg__sink *s, cg_write_fn write, void *ctx, cg_diag *diag);
/* Flushes, frees the buffer and returns the sink's status (with diag). */
cg_status cg__sink_finish(cg__sink *s, cg_diag *diag);

void cg__sink_flush(cg__sink *s);
void cg__sink_bytes(cg__sink *s, const void *data, size_t len);
void cg__sink_str(cg__sink *s, const char *str);
void cg__sink_u64(cg__sink *s, uint64_t v);
void cg__sink_i64(cg__sink *s, int64_t v);

/* Room for n more bytes at the end of the buffer (n <= 4096), or NULL after
 * a failure; the caller writes at most n bytes there and adds them with
 * cg__sink_commit. For tight loops (one tile number per cell). */
char *cg__sink_reserve(cg__sink *s, size_t n);
static inline void cg__sink_commit(cg__sink *s, size_t n)
{
    s->len += n;
}

/* A JSON string literal, quotes included: '"', '\\' and control characters
 * escaped; text that is not UTF-8 written as U+FFFD (so the output is always
 * valid JSON). */
void cg__sink_json_string(cg__sink *s, const char *text, size_t len);
/* Text for XML 1.0 element content (attr = 0) or a double-quoted attribute
 * value (attr = 1): markup characters as entities, line breaks and tabs in
 * attributes and carriage returns as character references (so a parser
 * gives them back unchanged), characters XML 1.0 forbids and bytes that are
 * not UTF-8 as U+FFFD. */
void cg__sink_xml_text(cg__sink *s, const char *text, size_t len, int attr);

#endif
