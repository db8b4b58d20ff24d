/* diag.h - filling in a cg_diag (core/diag.c, with cg_strerror). */
#ifndef CG_CORE_DIAG_H
#define CG_CORE_DIAG_H

#include "cavegen/cavegen.h"

/* Sets d's position and message (printf-style, truncated to fit); d may be
 * NULL. */
void cg__diag(cg_diag *d, int line, int column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
