/* diag.h - filling in a cg_diag (core/diag.c, with cg_strerror), and checking
 * option structs' reserved words (core/version.c, with cg_version). */
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

/* CG_OK if reserved[0..n-1], the reserved words of the option struct named
 * what, are all zero; else CG_EINVAL with d saying so (core/version.c). */
cg_status cg__reserved_zero(const uint64_t *reserved, size_t n, const char *what, cg_diag *d);

#endif
