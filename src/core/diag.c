/* core/diag.c - status strings and diagnostics. */
#include <stdarg.h>
#include <stdio.h>

#include "core/diag.h"

const char *cg_strerror(cg_status status)
{
    switch (status) {
    case CG_OK:
        return "success";
    case CG_EINVAL:
        return "invalid argument";
    case CG_ENOMEM:
        return "out of memory";
    case CG_EOVERFLOW:
        return "size too large";
    case CG_EPARSE:
        return "malformed input";
    case CG_EIO:
        return "write failed";
    case CG_EFAIL:
        return "requirement not met";
    case CG_EUNSUPPORTED:
        return "not supported by this build";
    }
    return "unknown status";
}

void cg__diag(cg_diag *d, int line, int column, const char *fmt, ...)
{
    if (!d)
        return;
    d->line = line;
    d->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
}
