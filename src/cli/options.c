/* options.c - the command line of cavegen, parsed into a struct cli_options.
 *
 * Everything that can be checked without touching a file is checked here, so
 * that exit status 2 always means "the command line is wrong" and is reported
 * before any slow or failing runtime work (docs/cli.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "messages.h"

/* Values for options that have no short form. */
enum {
    OPT_SIZE = 256,
    OPT_STEP,
    OPT_FILL,
    OPT_GENERATIONS,
    OPT_SCALE,
    OPT_LIST_PRESETS,
    OPT_LIST_FORMATS,
    OPT_SHOW_PRESET,
    OPT_STATS,
    OPT_MAX_ATTEMPTS,
    OPT_REACH,
    OPT_MOVES,
    OPT_CHUNK,
    OPT_MAX_MEMORY
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, 'p'},
    {"seed", required_argument, NULL, 's'},
    {"width", required_argument, NULL, 'W'},
    {"height", required_argument, NULL, 'H'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"input", required_argument, NULL, 'i'},
    {"step", required_argument, NULL, OPT_STEP},
    {"fill", required_argument, NULL, OPT_FILL},
    {"generations", required_argument, NULL, OPT_GENERATIONS},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"stats", optional_argument, NULL, OPT_STATS},
    {"max-attempts", required_argument, NULL, OPT_MAX_ATTEMPTS},
    {"reach", required_argument, NULL, OPT_REACH},
    {"moves", required_argument, NULL, OPT_MOVES},
    {"count", required_argument, NULL, 'n'},
    {"jobs", required_argument, NULL, 'j'},
    {"chunk", required_argument, NULL, OPT_CHUNK},
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
    {"list-presets", no_argument, NULL, OPT_LIST_PRESETS},
    {"list-formats", no_argument, NULL, OPT_LIST_FORMATS},
    {"show-preset", required_argument, NULL, OPT_SHOW_PRESET},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The leading ':' makes getopt report a missing argument as ':' and stay
 * silent: its own messages would start with argv[0], not "cavegen: ". */
static const char short_options[] = ":p:s:W:H:i:o:f:n:j:qhV";

#define SCALE_DEFAULT 4u
#define SCALE_MAX 64u
#define COUNT_MAX UINT32_MAX /* maps in a batch */
#define JOBS_MAX 1024u
#define CHUNK_MAX INT32_MAX  /* |CX|, |CY|: chunks a side of the origin */
#define PATTERN_MAX_WIDTH 64 /* width and precision of the %d of -o */

void cli_print_help(FILE *fp)
{
    fprintf(fp,
            "Usage: cavegen [OPTION]...\n"
            "Generate a cave map from a pipeline of steps (a preset, plus steps given as\n"
            "options), or run steps on an ASCII map, and write it as ASCII, PNG, JSON,\n"
            "a Tiled map (TMX, TMJ) or a PBM bitmap.\n"
            "\n"
            "Pipeline:\n"
            "  -p, --preset NAME|FILE  start from a built-in preset (see --list-presets)\n"
            "                          or a preset file; default: type2, or no steps with -i\n"
            "      --step 'LINE'       append one step in the preset language (repeatable)\n"
            "      --fill P            append 'fill P': P percent walls, 0..100\n"
            "      --generations N:R1,R2\n"
            "                          append 'generations N r1=R1 r2=R2' (repeatable);\n"
            "                          R1 in 0..9, R2 in -1..21 (-1: no second test)\n"
            "  -s, --seed N            seed, 0..18446744073709551615; default: drawn from\n"
            "                          the system and reported on stderr\n"
            "  -W, --width N           map width, 1..%" PRIu32 "; default: the preset's, else 80\n"
            "  -H, --height N          map height, 1..%" PRIu32 "; default: the preset's, else 50\n"
            "      --size WxH          width and height at once (default 80x50)\n"
            "  -i, --input FILE|-      start from an ASCII map ('-': stdin); the map has\n"
            "                          its own size, so -W, -H and --size are refused\n"
            "      --reach X,Y|entrance\n"
            "                          after the other steps, the distance of every cell\n"
            "                          reachable from X,Y (repeatable: the nearest start\n"
            "                          counts) or the entrance; shown as 0-9a-z+ in ASCII,\n"
            "                          a colour ramp in PNG, or x,y,distance lines with\n"
            "                          -f distances\n"
            "      --moves M           with --reach: at most M moves (default: no limit)\n"
            "      --max-attempts N    runs of the pipeline allowed to meet its\n"
            "                          requirements (entrance, exit, poi, require),\n"
            "                          1..%u; default: %u\n"
            "      --max-memory SIZE   memory the maps running at once may hold, as 512M,\n"
            "                          8G (K, M, G, T: powers of 1024); default: the\n"
            "                          memory available now, within a container's limit,\n"
            "                          less 1/16. A run that would need more fails at\n"
            "                          once, or at the step that passes it\n"
            "\n"
            "Output:\n"
            "  -o, --output FILE|-     write to FILE; default: stdout ('-')\n"
            "  -f, --format FORMAT     one of the formats below; default: from FILE's\n"
            "                          extension (anything else: ascii); stdout: ascii\n",
            CG_MAX_DIM, CG_MAX_DIM, CG_MAX_ATTEMPTS, CG_DEFAULT_ATTEMPTS);
    /* The formats, from the library's table (cg_format_describe). */
    cg_format_info info;
    for (size_t i = 0; cg_format_describe((cg_format)i, &info) == CG_OK; i++)
        fprintf(fp, "                          %-9s %-5s  %s%s\n", info.name, info.extension,
                info.summary, info.available ? "" : " (not in this build)");
    fprintf(fp,
            "                          A Tiled FILE (tmx, tmj) gets the tileset image\n"
            "                          " CG_TILESET_IMAGE " beside it, unless one is\n"
            "                          there already\n"
            "      --scale N           PNG and PBM pixels per cell, 1..%u; default: %u\n"
            "      --stats[=FORMAT]    after writing, print figures about the map on stderr:\n"
            "                          FORMAT 'text' (default: one line of key=value) or\n"
            "                          'json' (one JSON object); a batch: one line per map\n"
            "\n",
            SCALE_MAX, SCALE_DEFAULT);
    /* Split: C11 compilers need only take string literals of 4095 bytes. */
    fprintf(fp,
            "Batches and scale:\n"
            "  -n, --count N           write N maps, map I with seed SEED+I (I = 0..N-1);\n"
            "                          FILE must hold one printf-style %%d (%%04d, %%5d)\n"
            "                          that becomes I; with -o - (or no -o) the maps go\n"
            "                          to stdout, one blank line between them\n"
            "  -j, --jobs N            threads, 0..%u; 0: one per core; default 1. Maps\n"
            "                          are the same for any N\n"
            "      --chunk CX,CY       the W x H window at (CX*W, CY*H) of the infinite\n"
            "                          cave of the seed: no border, and chunks meet\n"
            "                          seamlessly; local steps only (fill, generations,\n"
            "                          smooth, rule)\n"
            "\n"
            "Information:\n"
            "      --list-presets      list the built-in presets\n"
            "      --list-formats      list the output formats: name, extension, summary\n"
            "      --show-preset NAME  print the text of a built-in preset\n"
            "  -q, --quiet             do not report a seed drawn from the system, nor\n"
            "                          draw a batch's progress bar\n"
            "  -h, --help              show this help and exit\n"
            "  -V, --version           show the version and exit\n"
            "\n"
            "Steps given as options run in the order given, after the preset's steps.\n"
            "With step options but no --preset, only those steps run. For the step\n"
            "language, see an example with 'cavegen --show-preset type2'.\n"
            "ASCII maps: '#' wall, '.' floor, '<' entrance, '>' exit, '*' point of\n"
            "interest, 'x' blocked floor; one line per row.\n"
            "A FILE is replaced only by a complete map (written beside it, then renamed).\n"
            "\n"
            "Examples:\n"
            "  cavegen --preset type2 --seed 42 -o cave.png\n"
            "  cavegen -p type4 --size 120x40 -s 7            (ASCII on stdout)\n"
            "  cavegen --fill 40 --generations 4:5,2 --generations 3:5,-1 -o cave.txt\n"
            "  cavegen -i drawn.txt --step 'smooth 2' -o drawn.png\n"
            "  cavegen --preset level --seed 42 --stats -o level.png\n"
            "  cavegen -i map.txt --reach 12,7 --moves 6\n"
            "  cavegen -p type2 -s 42 -n 1000 -j 0 -o 'out/%%04d.png'   (seeds 42..1041)\n"
            "  cavegen -p type4 -s 7 --chunk -3,2 -o chunk.png\n"
            "\n"
            "Exit status: 0 success; 1 runtime failure (a file cannot be read or is\n"
            "malformed, out of memory, a requirement was not met after the attempts, a\n"
            "write failed); 2 usage error (a bad option or value, an unknown preset name,\n"
            "a bad step). Interrupted (SIGINT, SIGTERM, SIGHUP): no partial file is left\n"
            "and the tool dies by the signal (a shell shows 128+N: 130 for Ctrl-C).\n",
            JOBS_MAX);
}

/* ------------------------------------------------------------- helpers */

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

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

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the run of decimal digits at s. */
static size_t digit_span(const char *s)
{
    size_t n = 0;
    while (is_digit(s[n]))
        n++;
    return n;
}

/* Converts the n digits at s (n = digit_span(s) > 0, so strtoull stops
 * exactly there). Returns 0, or -1 on overflow. */
static int convert_digits(const char *s, size_t n, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || end != s + n)
        return -1;
    *value = (uint64_t)v;
    return 0;
}

/* A whole option value as an unsigned decimal in lo..hi. Signs, spaces and
 * any other character are refused: strtoull alone would accept " -1" as
 * 18446744073709551615. */
static int parse_number(const char *option, const char *s, uint64_t lo, uint64_t hi,
                        uint64_t *value)
{
    size_t n = digit_span(s);
    uint64_t v = 0;

    if (n == 0 || s[n] != '\0') {
        /* A negative number is a number, just not in the range. */
        if (s[0] == '-' && n == 0 && digit_span(s + 1) > 0 && s[1 + digit_span(s + 1)] == '\0')
            return cli_usage_error("%s: '%s' is not in %" PRIu64 "..%" PRIu64, option, s, lo, hi);
        return cli_usage_error("%s: '%s' is not a number in %" PRIu64 "..%" PRIu64, option, s, lo,
                               hi);
    }
    if (convert_digits(s, n, &v) != 0 || v < lo || v > hi)
        return cli_usage_error("%s: '%s' is not in %" PRIu64 "..%" PRIu64, option, s, lo, hi);
    *value = v;
    return CLI_EXIT_OK;
}

/* --max-memory SIZE: digits and one of K, M, G, T (powers of 1024), with an
 * optional "iB" or "B" after it. A unit is required: a bare 512 would be
 * bytes to some readers and MiB to others. */
static int parse_memory(const char *s, uint64_t *bytes)
{
    size_t n = digit_span(s);
    unsigned shift = 0;
    uint64_t v = 0;

    switch (n > 0 ? s[n] : '\0') {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    case 'T':
    case 't':
        shift = 40;
        break;
    default:
        break;
    }
    const char *rest = shift ? s + n + 1 : "";
    if (!shift || (rest[0] && strcmp(rest, "B") != 0 && strcmp(rest, "iB") != 0))
        return cli_usage_error("--max-memory: '%s' is not a size such as 512M or 8G", s);
    if (convert_digits(s, n, &v) != 0 || v == 0 || v > (UINT64_MAX >> shift))
        return cli_usage_error("--max-memory: '%s' is not in 1K..%" PRIu64 "T", s,
                               UINT64_MAX >> 40);
    *bytes = v << shift;
    return CLI_EXIT_OK;
}

static int parse_dim(const char *option, const char *s, uint32_t *dim)
{
    uint64_t v = 0;
    int rc = parse_number(option, s, 1, CG_MAX_DIM, &v);
    if (rc == CLI_EXIT_OK)
        *dim = (uint32_t)v;
    return rc;
}

/* --size WxH (an 'X' is accepted too). */
static int parse_size(const char *s, uint32_t *width, uint32_t *height)
{
    size_t nw = digit_span(s);
    size_t nh = nw > 0 && (s[nw] == 'x' || s[nw] == 'X') ? digit_span(s + nw + 1) : 0;
    uint64_t w = 0, h = 0;

    if (nw == 0 || nh == 0 || s[nw + 1 + nh] != '\0')
        return cli_usage_error("--size: '%s' is not WxH (for example 80x50)", s);
    if (convert_digits(s, nw, &w) != 0 || w < 1 || w > CG_MAX_DIM)
        return cli_usage_error("--size: width '%.*s' is not in 1..%" PRIu32, (int)nw, s,
                               CG_MAX_DIM);
    if (convert_digits(s + nw + 1, nh, &h) != 0 || h < 1 || h > CG_MAX_DIM)
        return cli_usage_error("--size: height '%s' is not in 1..%" PRIu32, s + nw + 1, CG_MAX_DIM);
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return CLI_EXIT_OK;
}

/* Adds a step option; line is owned by opt from here on, even on failure. */
static int push_step(struct cli_options *opt, const char *option, const char *arg, char *line)
{
    if (!line) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if (opt->nsteps == opt->capsteps) {
        size_t cap = opt->capsteps ? 2 * opt->capsteps : 8;
        struct cli_step *steps = NULL;
        if (cap <= SIZE_MAX / sizeof *steps)
            steps = realloc(opt->steps, cap * sizeof *steps);
        if (!steps) {
            free(line);
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        opt->steps = steps;
        opt->capsteps = cap;
    }
    opt->steps[opt->nsteps].option = option;
    opt->steps[opt->nsteps].arg = arg;
    opt->steps[opt->nsteps].line = line;
    opt->nsteps++;
    return CLI_EXIT_OK;
}

/* --step 'LINE': exactly one line, so a reported column is unambiguous. */
static int add_step(struct cli_options *opt, const char *arg)
{
    for (const char *p = arg; *p; p++) {
        if (*p == '\n' || *p == '\r')
            return cli_usage_error("--step: give one step per --step (the value has a line "
                                   "break)");
    }
    return push_step(opt, "--step", arg, copy_string(arg));
}

/* --fill P: P percent walls, a decimal with an optional fraction. The shape
 * is checked here so nothing but a number reaches the preset parser. */
static int add_fill(struct cli_options *opt, const char *arg)
{
    size_t n = digit_span(arg);
    size_t len = n;

    if (n > 0 && arg[n] == '.' && digit_span(arg + n + 1) > 0)
        len = n + 1 + digit_span(arg + n + 1);
    if (n == 0 || arg[len] != '\0')
        return cli_usage_error("--fill: '%s' is not a number in 0..100", arg);
    if (strtod(arg, NULL) > 100.0)
        return cli_usage_error("--fill: '%s' is not in 0..100", arg);

    char *line = malloc(len + sizeof "fill ");
    if (line)
        snprintf(line, len + sizeof "fill ", "fill %s", arg);
    return push_step(opt, "--fill", arg, line);
}

/* --generations N:R1,R2 -> "generations N r1=R1 r2=R2" (SPEC 3.1 ranges). */
static int add_generations(struct cli_options *opt, const char *arg)
{
    const char *p = arg;
    size_t nn = digit_span(p);
    const char *r1s = NULL, *r2s = NULL;
    size_t n1 = 0, n2 = 0;
    size_t negative = 0; /* 1 if R2 has a minus sign: the sign's length */
    uint64_t r1 = 0, r2 = 0;

    if (nn > 0 && p[nn] == ':') {
        r1s = p + nn + 1;
        n1 = digit_span(r1s);
        if (n1 > 0 && r1s[n1] == ',') {
            r2s = r1s + n1 + 1;
            negative = *r2s == '-' ? 1 : 0;
            n2 = digit_span(r2s + negative);
        }
    }
    if (n2 == 0 || r2s[negative + n2] != '\0')
        return cli_usage_error("--generations: '%s' is not N:R1,R2 (for example 5:5,-1)", arg);
    if (convert_digits(r1s, n1, &r1) != 0 || r1 > 9)
        return cli_usage_error("--generations: R1 '%.*s' in '%s' is not in 0..9", (int)n1, r1s,
                               arg);
    if (convert_digits(r2s + negative, n2, &r2) != 0 || r2 > (negative ? 1u : 21u))
        return cli_usage_error("--generations: R2 '%s' in '%s' is not in -1..21", r2s, arg);

    /* N is passed through as typed: its range belongs to the preset parser. */
    size_t size = nn + sizeof "generations  r1=9 r2=-1";
    char *line = malloc(size);
    if (line)
        snprintf(line, size, "generations %.*s r1=%d r2=%d", (int)nn, arg, (int)r1,
                 negative ? -(int)r2 : (int)r2);
    return push_step(opt, "--generations", arg, line);
}

/* --reach X,Y or --reach entrance: one more start of the reach step. */
static int add_reach_start(struct cli_options *opt, const char *arg)
{
    size_t nx = digit_span(arg);
    size_t ny = nx > 0 && arg[nx] == ',' ? digit_span(arg + nx + 1) : 0;
    if (strcmp(arg, "entrance") != 0 && (ny == 0 || arg[nx + 1 + ny] != '\0'))
        return cli_usage_error("--reach: '%s' is not X,Y or entrance (for example 12,7)", arg);
    if (opt->reach_count == 32)
        return cli_usage_error("--reach: at most 32 starts");
    size_t old = opt->reach_from ? strlen(opt->reach_from) : 0;
    char *from = realloc(opt->reach_from, old + strlen(arg) + 2);
    if (!from) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if (old)
        from[old++] = ';';
    strcpy(from + old, arg);
    opt->reach_from = from;
    opt->reach_count++;
    return CLI_EXIT_OK;
}

/* After the other steps: `reach from=... [moves=M]` (docs/reach.md). */
static int push_reach_step(struct cli_options *opt)
{
    if (!opt->reach_from) {
        if (opt->moves)
            return cli_usage_error("--moves needs --reach");
        return CLI_EXIT_OK;
    }
    size_t size = strlen(opt->reach_from) + (opt->moves ? strlen(opt->moves) : 0) + 32;
    char *line = malloc(size);
    if (line)
        snprintf(line, size, "reach from=%s%s%s", opt->reach_from, opt->moves ? " moves=" : "",
                 opt->moves ? opt->moves : "");
    int rc = push_step(opt, "--reach", opt->reach_from, line);
    opt->has_reach = rc == CLI_EXIT_OK;
    return rc;
}

/* --chunk CX,CY: two signed decimals in -CHUNK_MAX..CHUNK_MAX. */
static int parse_signed(const char *s, size_t *len, int64_t *value)
{
    size_t neg = s[0] == '-' ? 1 : 0;
    size_t n = digit_span(s + neg);
    uint64_t v = 0;
    if (n == 0)
        return -1;
    *len = neg + n;
    if (convert_digits(s + neg, n, &v) != 0 || v > CHUNK_MAX)
        return 1;
    *value = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int parse_chunk(const char *arg, int64_t *cx, int64_t *cy)
{
    size_t nx = 0, ny = 0;
    int rx = parse_signed(arg, &nx, cx);
    int ry = rx >= 0 && arg[nx] == ',' ? parse_signed(arg + nx + 1, &ny, cy) : -1;
    if (rx < 0 || ry < 0 || arg[nx + 1 + ny] != '\0')
        return cli_usage_error("--chunk: '%s' is not CX,CY (for example -3,2)", arg);
    if (rx > 0 || ry > 0)
        return cli_usage_error("--chunk: '%s': chunk numbers must be in %d..%d", arg, -CHUNK_MAX,
                               CHUNK_MAX);
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------ output patterns */

/* One %d conversion as printf reads it: flags, width, precision. */
struct conversion {
    int minus, plus, space, zero;
    int width, precision; /* -1: none */
};

/* Parses the conversion after a '%' at p. Returns its length up to and
 * including the 'd', or 0 (*why set) if it is not a %d of the accepted
 * shape. */
static size_t parse_conversion(const char *p, struct conversion *c, const char **why)
{
    size_t i = 0;
    memset(c, 0, sizeof *c);
    c->width = c->precision = -1;
    for (;; i++) {
        if (p[i] == '-')
            c->minus = 1;
        else if (p[i] == '+')
            c->plus = 1;
        else if (p[i] == ' ')
            c->space = 1;
        else if (p[i] == '0')
            c->zero = 1;
        else
            break;
    }
    size_t n = digit_span(p + i);
    uint64_t v = 0;
    if (n > 0) {
        if (convert_digits(p + i, n, &v) != 0 || v > PATTERN_MAX_WIDTH) {
            *why = "a %d's width must be at most 64";
            return 0;
        }
        c->width = (int)v;
        i += n;
    }
    if (p[i] == '.') {
        n = digit_span(p + i + 1);
        if (convert_digits(p + i + 1, n, &v) != 0 || v > PATTERN_MAX_WIDTH) {
            *why = "a %d's precision must be at most 64";
            return 0;
        }
        c->precision = n ? (int)v : 0;
        i += 1 + n;
    }
    if (p[i] != 'd') {
        *why = "a '%' must start a %d conversion (flags - + 0 or space, a width, a "
               "precision: %04d) or be written %%";
        return 0;
    }
    return i + 1;
}

int cli_pattern_check(const char *pattern, const char **why)
{
    int conversions = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        struct conversion c;
        size_t n = parse_conversion(p + 1, &c, why);
        if (n == 0)
            return -1;
        conversions++;
        p += n;
    }
    if (conversions != 1) {
        *why = conversions ? "it has more than one %d" : "it has no %d to number the maps";
        return -1;
    }
    return 0;
}

/* printf's %d of a nonnegative value, as C11 7.21.6.1 defines it. */
static size_t format_conversion(char *out, const struct conversion *c, uint64_t value)
{
    char digits[24];
    size_t nd = 0, len = 0;
    do {
        digits[nd++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (c->precision == 0 && nd == 1 && digits[0] == '0')
        nd = 0; /* "%.0d" of 0 prints no digit */
    size_t body = nd;
    if (c->precision > 0 && (size_t)c->precision > body)
        body = (size_t)c->precision;
    size_t sign = c->plus || c->space ? 1 : 0;
    size_t width = c->width > 0 ? (size_t)c->width : 0;
    size_t pad = width > sign + body ? width - sign - body : 0;
    int zeros = c->zero && !c->minus && c->precision < 0;
    if (!c->minus && !zeros)
        for (size_t i = 0; i < pad; i++)
            out[len++] = ' ';
    if (sign)
        out[len++] = c->plus ? '+' : ' ';
    if (zeros)
        for (size_t i = 0; i < pad; i++)
            out[len++] = '0';
    for (size_t i = nd; i < body; i++)
        out[len++] = '0';
    while (nd > 0)
        out[len++] = digits[--nd];
    if (c->minus)
        for (size_t i = 0; i < pad; i++)
            out[len++] = ' ';
    return len;
}

char *cli_pattern_format(const char *pattern, uint64_t index)
{
    /* The conversion takes at most 1 + 64 + 20 characters. */
    size_t cap = strlen(pattern) + 2 * PATTERN_MAX_WIDTH + 24;
    char *out = malloc(cap);
    size_t len = 0;
    const char *why = NULL;
    if (!out)
        return NULL;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            out[len++] = *p;
            continue;
        }
        if (p[1] == '%') {
            out[len++] = '%';
            p++;
            continue;
        }
        struct conversion c;
        size_t n = parse_conversion(p + 1, &c, &why);
        len += format_conversion(out + len, &c, index);
        p += n;
    }
    out[len] = '\0';
    return out;
}

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

static int unknown_preset(const char *option, const char *name)
{
    char *names = preset_names();
    int rc = cli_usage_error("%s: unknown preset '%s' (built-in presets: %s)", option, name,
                             names ? names : "?");
    free(names);
    return rc;
}

/* NAME is a built-in preset; else a path if it looks like one or exists.
 * A built-in name wins over a file of the same name in the current
 * directory: write ./NAME to mean the file. */
static int resolve_preset(struct cli_options *opt)
{
    const char *name = opt->preset_name;
    struct stat st;

    opt->preset_builtin = cg_preset_builtin(name, &opt->preset_builtin_len);
    if (opt->preset_builtin)
        return CLI_EXIT_OK;
    if (strchr(name, '/') || ends_with(name, ".preset") || stat(name, &st) == 0) {
        opt->preset_file = name;
        return CLI_EXIT_OK;
    }
    return unknown_preset("--preset", name);
}

/* -f wins; else the output's extension; stdout is ASCII. Only the last
 * component's extension counts, and a leading dot (".png") is a hidden
 * file's name, not an extension. */
static cg_format format_from_path(const char *path)
{
    cg_format format = CG_FORMAT_ASCII;
    cg_format_from_path(path, &format); /* the library's table; unknown: ASCII */
    return format;
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
static int parse_stats(const char *arg, enum cli_stats *stats)
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

static int parse_format(const char *arg, cg_format *format)
{
    if (cg_format_from_name(arg, format) == CG_OK)
        return CLI_EXIT_OK;
    char names[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < cg_format_count() && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                cg_format_name((cg_format)i));
    return cli_usage_error("--format: unknown format '%s' (expected one of %s)", arg, names);
}

/* The name of the option getopt stopped at, for messages. */
static const char *option_name(int c)
{
    for (const struct option *o = long_options; o->name; o++) {
        if (o->val == c)
            return o->name;
    }
    return "?";
}

static int bad_option(int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";

    if (c == ':') {
        if (optopt >= 256 || strncmp(arg, "--", 2) == 0)
            return cli_usage_error("option '--%s' requires an argument", option_name(optopt));
        return cli_usage_error("option '-%c' requires an argument", optopt);
    }
    if (strncmp(arg, "--", 2) != 0)
        return cli_usage_error("invalid option -- '%c'", optopt);
    if (optopt != 0 && strchr(arg, '='))
        return cli_usage_error("option '--%s' doesn't allow an argument", option_name(optopt));
    /* An unknown or ambiguous (abbreviated) long option. */
    return cli_usage_error("unrecognized or ambiguous option '%s'", arg);
}

/* --------------------------------------------------------------- parse */

int cli_parse_options(struct cli_options *opt, int argc, char **argv)
{
    const char *map_option = NULL; /* first option that only makes sense for a map */
    uint64_t value = 0;
    int have_format = 0, have_output = 0;
    int rc = CLI_EXIT_OK;
    int c;

    memset(opt, 0, sizeof *opt);
    opt->scale = SCALE_DEFAULT;
    opt->jobs = 1;
    opterr = 0;
    optind = 1;

    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (c != 'q' && c != 'h' && c != 'V' && c != OPT_LIST_PRESETS && c != OPT_SHOW_PRESET &&
            c != OPT_LIST_FORMATS && c != '?' && c != ':' && !map_option)
            map_option = option_name(c);

        switch (c) {
        case 'p':
            if (opt->preset_name)
                return cli_usage_error("--preset given twice (a run uses one preset; add "
                                       "steps with --step)");
            opt->preset_name = optarg;
            break;
        case 's':
            rc = parse_number("--seed", optarg, 0, UINT64_MAX, &opt->seed);
            opt->have_seed = 1;
            break;
        case 'W':
            rc = parse_dim("--width", optarg, &opt->width);
            if (!opt->size_option)
                opt->size_option = "--width";
            break;
        case 'H':
            rc = parse_dim("--height", optarg, &opt->height);
            if (!opt->size_option)
                opt->size_option = "--height";
            break;
        case OPT_SIZE:
            rc = parse_size(optarg, &opt->width, &opt->height);
            if (!opt->size_option)
                opt->size_option = "--size";
            break;
        case 'i':
            if (opt->input)
                return cli_usage_error("--input given twice");
            if (optarg[0] == '\0')
                return cli_usage_error("--input: empty file name");
            opt->input = optarg;
            break;
        case OPT_STEP:
            rc = add_step(opt, optarg);
            break;
        case OPT_FILL:
            rc = add_fill(opt, optarg);
            break;
        case OPT_GENERATIONS:
            rc = add_generations(opt, optarg);
            break;
        case 'o':
            if (have_output)
                return cli_usage_error("--output given twice");
            if (optarg[0] == '\0')
                return cli_usage_error("--output: empty file name");
            opt->output = strcmp(optarg, "-") == 0 ? NULL : optarg;
            have_output = 1;
            break;
        case 'f':
            rc = parse_format(optarg, &opt->format);
            have_format = 1;
            break;
        case OPT_SCALE:
            rc = parse_number("--scale", optarg, 1, SCALE_MAX, &value);
            opt->scale = (uint32_t)value;
            break;
        case OPT_STATS:
            rc = parse_stats(optarg, &opt->stats);
            break;
        case OPT_MAX_MEMORY:
            rc = parse_memory(optarg, &opt->max_memory);
            break;
        case OPT_MAX_ATTEMPTS:
            rc = parse_number("--max-attempts", optarg, 1, CG_MAX_ATTEMPTS, &value);
            opt->max_attempts = (uint32_t)value;
            break;
        case OPT_REACH:
            rc = add_reach_start(opt, optarg);
            break;
        case OPT_MOVES:
            rc = parse_number("--moves", optarg, 0, INT32_MAX, &value);
            opt->moves = optarg;
            break;
        case 'n':
            rc = parse_number("--count", optarg, 1, COUNT_MAX, &opt->count);
            break;
        case 'j':
            rc = parse_number("--jobs", optarg, 0, JOBS_MAX, &value);
            opt->jobs = (uint32_t)value;
            break;
        case OPT_CHUNK:
            rc = parse_chunk(optarg, &opt->chunk_x, &opt->chunk_y);
            opt->have_chunk = 1;
            break;
        case OPT_LIST_PRESETS:
        case OPT_LIST_FORMATS:
        case OPT_SHOW_PRESET:
            if (opt->action != CLI_RUN)
                return cli_usage_error("--list-presets, --list-formats and --show-preset cannot "
                                       "be combined, nor given twice");
            opt->action = c == OPT_LIST_PRESETS   ? CLI_LIST_PRESETS
                          : c == OPT_LIST_FORMATS ? CLI_LIST_FORMATS
                                                  : CLI_SHOW_PRESET;
            if (c == OPT_SHOW_PRESET)
                opt->show_name = optarg;
            break;
        case 'q':
            opt->quiet = 1;
            break;
        /* GNU convention: --help and --version act at once, ignoring the rest. */
        case 'h':
            opt->action = CLI_HELP;
            return CLI_EXIT_OK;
        case 'V':
            opt->action = CLI_VERSION;
            return CLI_EXIT_OK;
        default:
            return bad_option(c, argv);
        }
        if (rc != CLI_EXIT_OK)
            return rc;
    }

    if (optind < argc)
        return cli_usage_error("unexpected argument '%s' (the output goes to -o FILE)",
                               argv[optind]);

    if (opt->action == CLI_LIST_PRESETS || opt->action == CLI_LIST_FORMATS ||
        opt->action == CLI_SHOW_PRESET) {
        const char *what = opt->action == CLI_LIST_PRESETS   ? "--list-presets"
                           : opt->action == CLI_LIST_FORMATS ? "--list-formats"
                                                             : "--show-preset";
        if (map_option)
            return cli_usage_error("%s cannot be combined with --%s", what, map_option);
        size_t len = 0;
        if (opt->action == CLI_SHOW_PRESET && !cg_preset_builtin(opt->show_name, &len))
            return unknown_preset("--show-preset", opt->show_name);
        return CLI_EXIT_OK;
    }

    if (opt->input && opt->size_option)
        return cli_usage_error("%s cannot be used with --input (the map has its own size)",
                               opt->size_option);
    if (opt->input && opt->have_chunk)
        return cli_usage_error("--chunk cannot be used with --input (a chunk is a window of "
                               "the infinite cave of a seed)");
    /* -n numbers its files through the output name (docs/cli.md). */
    const char *why = NULL;
    if (opt->count && opt->output && cli_pattern_check(opt->output, &why) != 0)
        return cli_usage_error("--output '%s': %s (with -n the name needs one %%d, as in "
                               "'out/%%04d.png'; or use -o - for one stream)",
                               opt->output, why);

    if (!have_format)
        opt->format = opt->output ? format_from_path(opt->output) : CG_FORMAT_ASCII;
    /* A batch on stdout is one stream of text maps, a blank line apart. */
    cg_format_info info;
    if (cg_format_describe(opt->format, &info) != CG_OK)
        return cli_usage_error("unknown format %d", (int)opt->format);
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

    if (opt->preset_name && (rc = resolve_preset(opt)) != CLI_EXIT_OK)
        return rc;
    if ((rc = push_reach_step(opt)) != CLI_EXIT_OK)
        return rc;

    /* Check the step options' syntax now, on a scratch pipeline, so that a
     * typo is a usage error even when a preset file is also broken. */
    if (opt->nsteps > 0) {
        cg_pipeline *scratch = NULL;
        if (cg_pipeline_new(&scratch) != CG_OK) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        rc = cli_append_steps(scratch, opt);
        cg_pipeline_free(scratch);
    }
    return rc;
}

int cli_append_steps(cg_pipeline *pipeline, const struct cli_options *opt)
{
    for (size_t i = 0; i < opt->nsteps; i++) {
        const struct cli_step *step = &opt->steps[i];
        cg_diag diag = {0};
        cg_status st = cg_pipeline_parse(pipeline, step->line, strlen(step->line), &diag);
        const char *why = diag.message[0] ? diag.message : cg_strerror(st);

        if (st == CG_OK)
            continue;
        if (st == CG_ENOMEM) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        /* Only --step's value is what the parser saw, so only it gets a column. */
        if (strcmp(step->option, "--step") == 0 && diag.column > 0)
            return cli_usage_error("--step '%s': column %d: %s", step->arg, diag.column, why);
        return cli_usage_error("%s '%s': %s", step->option, step->arg, why);
    }
    return CLI_EXIT_OK;
}

void cli_options_free(struct cli_options *opt)
{
    for (size_t i = 0; i < opt->nsteps; i++)
        free(opt->steps[i].line);
    free(opt->steps);
    free(opt->reach_from);
    opt->reach_from = NULL;
    opt->steps = NULL;
    opt->nsteps = opt->capsteps = 0;
}
