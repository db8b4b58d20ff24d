/* io/format_table.c - every output format, indexed by its value in the
 * public cg_format enum. Adding a format is its file, a value at the end of
 * cg_format and one line here (docs/contributing.md). */
#include "io/format.h"

#define CG__FORMAT_LIST(X)                                                                         \
    X(ascii, CG_FORMAT_ASCII)                                                                      \
    X(png, CG_FORMAT_PNG)                                                                          \
    X(json, CG_FORMAT_JSON)                                                                        \
    X(tmx, CG_FORMAT_TMX)                                                                          \
    X(tmj, CG_FORMAT_TMJ)                                                                          \
    X(pbm, CG_FORMAT_PBM)                                                                          \
    X(distances, CG_FORMAT_DISTANCES)                                                              \
    X(ansi, CG_FORMAT_ANSI)

#define DECLARE(name, value) extern const cg__format_def cg__format_##name;
CG__FORMAT_LIST(DECLARE)
#undef DECLARE

#define ENTRY(name, value) [value] = &cg__format_##name,
const cg__format_def *const cg__formats[] = {CG__FORMAT_LIST(ENTRY)};
#undef ENTRY
const size_t cg__format_count = sizeof cg__formats / sizeof cg__formats[0];
