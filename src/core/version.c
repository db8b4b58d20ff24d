/* core/version.c - the version of the library linked at run time, and the
 * check that lets option structs grow within a major version: a field that
 * a later 1.x version adds takes its room out of the struct's reserved
 * words, so a nonzero reserved word is a field this library does not know
 * (docs/api.md, "Versions and ABI"). */
#include "core/diag.h"

_Static_assert(CG_VERSION_MINOR < 256 && CG_VERSION_PATCH < 256,
               "cg_version() keeps the minor and patch versions in 8 bits each");

uint32_t cg_version(void)
{
    return (uint32_t)CG_VERSION_NUMBER;
}

const char *cg_version_string(void)
{
    return CG_VERSION_STRING;
}

cg_status cg__reserved_zero(const uint64_t *reserved, size_t n, const char *what, cg_diag *diag)
{
    for (size_t i = 0; i < n; i++) {
        if (reserved[i]) {
            cg__diag(diag, 0, 0,
                     "%s.reserved[%zu] is not zero: the options were not zero-initialised, or "
                     "use a field of a later version than this library's %s",
                     what, i, CG_VERSION_STRING);
            return CG_EINVAL;
        }
    }
    return CG_OK;
}
