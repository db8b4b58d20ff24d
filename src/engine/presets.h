/* presets.h - the built-in presets: presets/NAME.preset, made a C table at
 * build time by cmake/embed_presets.cmake. */
#ifndef CG_ENGINE_PRESETS_H
#define CG_ENGINE_PRESETS_H

#include <stddef.h>

struct cg__preset_data {
    const char *name;
    const char *summary;
    const char *text;
    size_t len;
};

extern const struct cg__preset_data cg__presets[];
extern const size_t cg__preset_total;

#endif
