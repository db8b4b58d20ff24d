/* output_options.c - what is written and how (output_options.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cavegen/cavegen.h"
#include "cli.h"
#include "messages.h"
#include "numbers.h"
#include "output_options.h"

/* ASCII-only, so the result never depends on the locale. */
static int lower_ascii(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int equal_nocase(const char *a, const char *b)
{
    while (*a && lower_ascii((unsigned char)*a) == lower_ascii((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

/* -f wins; else the output's extension; stdout, and a name without an
 * extension, are ASCII. Only the last component's extension counts, and a
 * leading dot (".png") is a hidden file's name, not an extension. An
 * extension no format has is a usage error: writing ASCII into "x.gif"
 * would only be found out later. */
static int format_from_path(const char *path, cg_format *format)
{
    *format = CG_FORMAT_ASCII;
    if (cg_format_from_path(path, format) == CG_OK)
        return CLI_EXIT_OK;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return CLI_EXIT_OK;
    char exts[256] = "";
    const char *names[64];
    size_t len = 0, n = 0;
    cg_format_info info;
    for (size_t i = 0; i < cg_format_count() && n < 64; i++) {
        if (cg_format_describe((cg_format)i, &info) != CG_OK)
            continue;
        names[n++] = info.extension + 1; /* without its dot */
        if (len < sizeof exts)
            len += (size_t)snprintf(exts + len, sizeof exts - len, "%s%s", i ? " " : "",
                                    info.extension);
    }
    const char *near = cg_nearest_name(dot + 1, strlen(dot + 1), names, n);
    return cli_usage_error("-o '%s': no format has the extension '%s'%s%s%s (known: %s); "
                           "name the format with -f",
                           path, dot, near ? "; did you mean '." : "", near ? near : "",
                           near ? "'?" : "", exts);
}

/* A build of the library without libpng (CAVEGEN_PNG=OFF) cannot write PNG,
 * nor the tileset image a Tiled map in a file needs beside it: refused as a
 * usage error, since this command line cannot be honoured by this build,
 * before a map is made, so that no file is written or replaced. A Tiled map
 * to standard output, or to an existing device or FIFO, gets no tileset
 * image (batch.c, write_tileset) and is still written. */
static int check_png_available(const struct cli_options *opt)
{
    if (cg_format_available(CG_FORMAT_PNG))
        return CLI_EXIT_OK;
    if (opt->format == CG_FORMAT_PNG) {
        if (!opt->output)
            return cli_usage_error("cannot write PNG to standard output: this cavegen was "
                                   "built without PNG support (-f pbm writes a PBM bitmap "
                                   "instead)");
        return cli_usage_error("cannot write '%s' as PNG: this cavegen was built without PNG "
                               "support (-o NAME.pbm writes a PBM bitmap instead)",
                               opt->output);
    }
    cg_format_info info;
    if (cg_format_describe(opt->format, &info) == CG_OK && info.tileset && opt->output) {
        struct stat st;
        if (!opt->count && stat(opt->output, &st) == 0 && !S_ISREG(st.st_mode))
            return CLI_EXIT_OK;
        return cli_usage_error("cannot write '%s': its tileset image %s is a PNG, and this "
                               "cavegen was built without PNG support (-o - writes the map "
                               "alone to standard output)",
                               opt->output, CG_TILESET_IMAGE);
    }
    return CLI_EXIT_OK;
}

/* "ascii, json or distances": the formats a batch can stream, for messages. */
static const char *stream_formats(void)
{
    static char names[256];
    size_t len = 0, n = 0, count = 0;
    cg_format_info info;
    for (size_t i = 0; cg_format_describe((cg_format)i, &info) == CG_OK; i++)
        count += info.stream != 0;
    names[0] = '\0';
    for (size_t i = 0; cg_format_describe((cg_format)i, &info) == CG_OK && len < sizeof names; i++)
        if (info.stream) {
            n++;
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    n == 1       ? ""
                                    : n == count ? " or "
                                                 : ", ",
                                    info.name);
        }
    return names;
}

/* A format's name in capitals ("PNG"), for messages. */
struct upper_name {
    char s[32];
};
static struct upper_name upper(const char *name)
{
    struct upper_name u;
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof u.s; i++)
        u.s[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
    u.s[i] = '\0';
    return u;
}

/* --stats[=text|json]: the value must be attached (GNU optional arguments). */
int cli_parse_stats(const char *arg, enum cli_stats *stats)
{
    if (!arg || equal_nocase(arg, "text")) {
        *stats = CLI_STATS_TEXT;
        return CLI_EXIT_OK;
    }
    if (equal_nocase(arg, "json")) {
        *stats = CLI_STATS_JSON;
        return CLI_EXIT_OK;
    }
    return cli_usage_error("--stats: unknown format '%s' (expected text or json)", arg);
}

int cli_parse_format(const char *arg, cg_format *format)
{
    if (cg_format_from_name(arg, format) == CG_OK)
        return CLI_EXIT_OK;
    char names[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < cg_format_count() && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                cg_format_name((cg_format)i));
    const char *list[64];
    size_t n = 0;
    for (size_t i = 0; i < cg_format_count() && n < 64; i++)
        list[n++] = cg_format_name((cg_format)i);
    const char *near = cg_nearest_name(arg, strlen(arg), list, n);
    return cli_usage_error("--format: unknown format '%s'%s%s%s (expected one of %s)", arg,
                           near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                           names);
}

/* The range is the library's (CG_MAX_SCALE, what cg_write accepts); 0,
 * which cg_write takes as its default, is refused here. */
int cli_parse_scale(const char *arg, uint32_t *scale)
{
    uint64_t v = 0;
    int rc = cli_parse_number("--scale", arg, 1, CG_MAX_SCALE, &v);
    if (rc == CLI_EXIT_OK)
        *scale = (uint32_t)v;
    return rc;
}

/* The width of the terminal on stdout, else $COLUMNS, else 80. */
static uint32_t terminal_columns(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    char *end = NULL;
    unsigned long v = env && *env >= '1' && *env <= '9' ? strtoul(env, &end, 10) : 0;
    return v > 0 && v <= 100000 && end && *end == '\0' ? (uint32_t)v : 80;
}

/* The terminal picture (docs/cli.md, "Looking at a map"): on a terminal
 * without -o or -f, with --preview, or with -f ansi to a terminal, fitted
 * to its width; never on a pipe unless asked. */
static int resolve_preview(struct cli_options *opt, int have_format)
{
    int tty = !opt->output && isatty(STDOUT_FILENO);
    if (opt->preview) {
        if (opt->output)
            return cli_usage_error("--preview shows the map on standard output; it cannot go "
                                   "with -o FILE (use -f ansi -o FILE)");
        if (have_format && opt->format != CG_FORMAT_ANSI)
            return cli_usage_error("--preview draws the map as a picture; it cannot go with -f %s",
                                   cg_format_name(opt->format));
        opt->format = CG_FORMAT_ANSI;
        opt->columns = terminal_columns();
    } else if (tty && (!have_format || opt->format == CG_FORMAT_ANSI)) {
        opt->format = CG_FORMAT_ANSI;
        opt->columns = terminal_columns();
    }
    return CLI_EXIT_OK;
}

int cli_resolve_output(struct cli_options *opt, int have_format)
{
    cg_format_info info;
    int rc;

    if ((rc = resolve_preview(opt, have_format)) != CLI_EXIT_OK)
        return rc;
    if (opt->preview)
        have_format = 1;

    if (!have_format && opt->output && (rc = format_from_path(opt->output, &opt->format)) != 0)
        return rc;
    if (!have_format && !opt->output && opt->format != CG_FORMAT_ANSI)
        opt->format = CG_FORMAT_ASCII;
    if (cg_format_describe(opt->format, &info) != CG_OK)
        return cli_usage_error("unknown format %d", (int)opt->format);
    /* A batch on stdout is one stream of text maps, a blank line apart. */
    if (opt->count && !opt->output && !info.stream)
        return cli_usage_error("a batch on standard output must be text (%s), not %s: write "
                               "each map to its own file with -o 'NAME%%04d.EXT'",
                               stream_formats(), info.name);
    if ((rc = check_png_available(opt)) != CLI_EXIT_OK)
        return rc;
    if (!opt->output && info.binary && isatty(STDOUT_FILENO))
        return cli_usage_error("refusing to write binary %s to a terminal (use -o FILE or a "
                               "pipe)",
                               upper(info.name).s);
    return CLI_EXIT_OK;
}
