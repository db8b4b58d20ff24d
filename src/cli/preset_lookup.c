/* preset_lookup.c - finding a preset by name or file (preset_lookup.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cavegen/cavegen.h"
#include "messages.h"
#include "preset_lookup.h"

/* "type1, type2, ..." for messages; NULL if out of memory. */
static char *preset_names(void)
{
    size_t count = cg_preset_count(), size = 1;
    for (size_t i = 0; i < count; i++)
        size += strlen(cg_preset_name(i)) + 2;
    char *names = malloc(size);
    if (!names)
        return NULL;
    names[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            strcat(names, ", ");
        strcat(names, cg_preset_name(i));
    }
    return names;
}

/* A name that is neither built in nor a file: the nearest built-in name,
 * or the file NAME.preset when there is one (named as such, never loaded
 * in its place: a later built-in preset of that name would silently
 * change what the command means). */
static int unknown_preset(const char *option, const char *name)
{
    char *names = preset_names();
    const char *list[64];
    size_t n = 0;
    for (size_t i = 0; i < cg_preset_count() && n < 64; i++)
        list[n++] = cg_preset_name(i);
    const char *near = cg_nearest_name(name, strlen(name), list, n);
    size_t len = strlen(name);
    char *file = malloc(len + sizeof ".preset");
    struct stat st;
    int have_file = 0;
    if (file && strcmp(option, "--preset") == 0) {
        memcpy(file, name, len);
        memcpy(file + len, ".preset", sizeof ".preset");
        have_file = stat(file, &st) == 0;
    }
    int rc;
    if (have_file)
        rc = cli_usage_error("%s: no built-in preset is called '%s', but there is a file '%s': "
                             "use %s %s",
                             option, name, file, option, file);
    else
        rc = cli_usage_error("%s: unknown preset '%s'%s%s%s (built-in presets: %s)", option, name,
                             near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                             names ? names : "?");
    free(file);
    free(names);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cli_find_preset(const char *name, const char **builtin, size_t *len, const char **file)
{
    struct stat st;

    *builtin = cg_preset_builtin(name, len);
    if (*builtin)
        return CLI_EXIT_OK;
    if (strchr(name, '/') || ends_with(name, ".preset") || stat(name, &st) == 0) {
        *file = name;
        return CLI_EXIT_OK;
    }
    return unknown_preset("--preset", name);
}

int cli_find_builtin(const char *option, const char *name)
{
    size_t len = 0;
    return cg_preset_builtin(name, &len) ? CLI_EXIT_OK : unknown_preset(option, name);
}
