/* preset_lookup.h - finding the preset that --preset or --show-preset
 * names (docs/cli.md, "Preset names and files"). */
#ifndef CAVEGEN_CLI_PRESET_LOOKUP_H
#define CAVEGEN_CLI_PRESET_LOOKUP_H

#include <stddef.h>

/* --preset NAME: a built-in preset (*builtin, *len: its static text), else
 * a preset file (*file = name) if NAME contains a '/', ends in ".preset"
 * or names an existing file; a built-in name wins over a file of the same
 * name (./NAME means the file). Returns CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after a message that lists the built-in names. */
int cli_find_preset(const char *name, const char **builtin, size_t *len, const char **file);

/* A built-in preset only (--show-preset): CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after the same message, naming option. */
int cli_find_builtin(const char *option, const char *name);

#endif
