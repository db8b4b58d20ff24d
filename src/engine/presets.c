/* engine/presets.c - the built-in presets, compiled from the files presets/NAME.preset by
 * cmake/embed_presets.cmake. */
#include <string.h>

#include "cavegen/cavegen.h"
#include "engine/presets.h"

size_t cg_preset_count(void)
{
    return cg__preset_total;
}

const char *cg_preset_name(size_t index)
{
    return index < cg__preset_total ? cg__presets[index].name : NULL;
}

const char *cg_preset_summary(size_t index)
{
    return index < cg__preset_total ? cg__presets[index].summary : NULL;
}

const char *cg_preset_builtin(const char *name, size_t *len)
{
    for (size_t i = 0; i < cg__preset_total; i++)
        if (strcmp(cg__presets[i].name, name) == 0) {
            if (len)
                *len = cg__presets[i].len;
            return cg__presets[i].text;
        }
    return NULL;
}
