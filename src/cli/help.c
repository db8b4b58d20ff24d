/* help.c - the text of cavegen --help (help.h); docs/cli.md has the long
 * form. The formats come from the library's table. */
#define _POSIX_C_SOURCE 200809L /* cli.h */

#include <inttypes.h>
#include <stdio.h>

#include "cavegen/cavegen.h"
#include "cli.h"
#include "help.h"


/* The usage line and the pipeline's options. */
static void help_pipeline(FILE *fp)
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
            "  -D, --set NAME=VALUE    change a value of the preset's steps (repeatable):\n"
            "                          fill=47, poi.count=4, rule.2.floor=5..9;\n"
            "                          --show-preset NAME lists them\n"
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
            "                          requirements (entrance, exit, poi, occupy,\n"
            "                          require), 1..%u; default: %u\n"
            "      --keep-going        in a batch, skip a map that fails its requirements\n"
            "                          and go on (listed at the end, or in --stats)\n"
            "      --max-memory SIZE   memory the maps running at once may hold, as 512M,\n"
            "                          8G (K, M, G, T: powers of 1024); default: the\n"
            "                          memory available now, within a container's limit,\n"
            "                          less 1/16. A run that would need more fails at\n"
            "                          once, or at the step that passes it\n"
            "\n",
            CG_MAX_DIM, CG_MAX_DIM, CG_MAX_ATTEMPTS, CG_DEFAULT_ATTEMPTS);
}

static void help_output(FILE *fp)
{
    fputs("Output:\n"
          "  -o, --output FILE|-     write to FILE; default: stdout ('-')\n"
          "  -f, --format FORMAT     one of the formats below; default: from FILE's\n"
          "                          extension (anything else: ascii); stdout: ascii\n",
          fp);
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
            "      --preview           the map as a colour picture for the terminal, fitted\n"
            "                          to its width (the default on a terminal)\n"
            "      --stats[=FORMAT]    after writing, print figures about the map on stderr:\n"
            "                          FORMAT 'text' (default: one line of key=value) or\n"
            "                          'json' (one JSON object); a batch: one line per map\n"
            "\n",
            CG_MAX_SCALE, CG_DEFAULT_SCALE);
}

/* Batches, information, notes, examples, exit status. (The help is split:
 * C11 compilers need only take string literals of 4095 bytes.) */
static void help_rest(FILE *fp)
{
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
            "interest, 'A'-'Z' one of a named kind, 'x' blocked floor; one line per row.\n"
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
            "a bad step). Stopped by a signal (Ctrl-C, kill; any but SIGKILL): no partial\n"
            "file is left and the tool dies by the signal (a shell shows 128+N: 130 for\n"
            "Ctrl-C).\n",
            CLI_JOBS_MAX);
}

void cli_print_help(FILE *fp)
{
    help_pipeline(fp);
    help_output(fp);
    help_rest(fp);
}
