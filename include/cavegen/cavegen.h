/* cavegen.h - the public API of libcavegen, a cave and maze generator.
 *
 * A map is a W x H grid of cells, each wall or floor; x grows right, y down,
 * (0,0) is top-left. Markers (entrance, exit, points of interest, blocked
 * cells) sit on floor cells. A pipeline is a list of steps parsed from the
 * preset language (see docs/presets.md); running it with a seed produces a
 * grid. Same pipeline, same seed, same size: same grid, on every platform.
 *
 * Conventions: every function that can fail returns a cg_status; on failure
 * output pointers are left NULL and, where a cg_diag is passed, it holds a
 * message (and a line and column for text input). The library never prints,
 * exits or aborts on bad input. Every *_free function accepts NULL.
 */
#ifndef CAVEGEN_H
#define CAVEGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header, the project(VERSION) of CMakeLists.txt (the
 * configure step checks that they agree). Within one major version the ABI
 * only grows (docs/api.md, "Versions and ABI"): a program built against
 * 1.M runs with any 1.N library, N >= M. cg_version() tells which library
 * is linked at run time. */
#define CG_VERSION_MAJOR 1
#define CG_VERSION_MINOR 2
#define CG_VERSION_PATCH 0
#define CG_VERSION_STRING "1.2.0"
/* The version as cg_version() encodes it: major << 16 | minor << 8 | patch. */
#define CG_VERSION_NUMBER (CG_VERSION_MAJOR << 16 | CG_VERSION_MINOR << 8 | CG_VERSION_PATCH)

/* Largest width or height of a grid. Memory is the practical limit well
 * before this; cg_grid_bytes() tells what a size needs. */
#define CG_MAX_DIM 1048576u

typedef enum cg_status {
    CG_OK = 0,
    CG_EINVAL,    /* an argument is out of its documented range */
    CG_ENOMEM,    /* an allocation failed */
    CG_EOVERFLOW, /* a size computation would overflow */
    CG_EPARSE,    /* malformed preset text or map; see the cg_diag */
    CG_EIO,       /* the write callback reported a failure */
    CG_EFAIL,     /* a pipeline requirement could not be met */
    CG_EUNSUPPORTED /* this build of the library leaves the feature out
                     * (PNG without libpng: cg_format_available) */
} cg_status;

/* A static English description of a status; never NULL. */
const char *cg_strerror(cg_status status);

/* A byte count as cavegen's messages write it, so that a program's own
 * messages about memory budgets read the same: in the largest of bytes,
 * KiB and MiB it is at least one of, with one decimal under 10 when not
 * whole ("512 KiB", "1.9 MiB", "24105 MiB"); rounded up when round_up is
 * nonzero (a need), else down (a budget). buf holds at least 32 bytes; it
 * gets a NUL-terminated string. */
void cg_format_bytes(char buf[32], uint64_t bytes, int round_up);

/* The version of the library linked at run time, which may be a later minor
 * version than the header a program was built with: major << 16 | minor << 8
 * | patch, as CG_VERSION_NUMBER. A program that needs a function or field
 * of 1.N checks cg_version() >= (1 << 16 | N << 8). */
uint32_t cg_version(void);
/* The same as "MAJOR.MINOR.PATCH", static; never NULL. */
const char *cg_version_string(void);

/* Where and why something failed. line and column are 1-based and 0 when
 * they do not apply. Zero-initialise before use. */
typedef struct cg_diag {
    int line;
    int column;
    char message[256];
} cg_diag;

/* "Did you mean": of names[0..n), the one nearest to word[0..len) when it
 * is close enough to be a typo of it (a few letters added, dropped, changed
 * or swapped, ASCII case ignored) or starts with it; else NULL. For the
 * messages of tools that take names (steps, presets, formats, options).
 * Since 1.1. */
const char *cg_nearest_name(const char *word, size_t len, const char *const *names, size_t n);

/* ---------------------------------------------------------------- grids */

typedef struct cg_grid cg_grid;

typedef enum cg_cell {
    CG_FLOOR = 0,
    CG_WALL = 1
} cg_cell;

typedef enum cg_marker {
    CG_MARK_NONE = 0,
    CG_MARK_ENTRANCE, /* '<' */
    CG_MARK_EXIT,     /* '>' */
    CG_MARK_POI,      /* '*' point of interest, or 'A'..'Z' one of a named kind
                       * (cg_grid_marker_symbol) */
    CG_MARK_BLOCKED   /* 'x' floor occupied by something: a unit's moves never enter
                       * it (a unit may start on one); the cave's shape (regions,
                       * floor counts) counts it as floor (docs/placement.md) */
} cg_marker;

/* Allocates a width x height grid, every cell wall, no markers.
 * width and height must be in 1..CG_MAX_DIM (else CG_EINVAL). */
cg_status cg_grid_new(cg_grid **out, uint32_t width, uint32_t height);

/* A deep copy of src, markers included. */
cg_status cg_grid_clone(cg_grid **out, const cg_grid *src);

void cg_grid_free(cg_grid *grid);

/* The bytes a width x height grid occupies (one bit per cell plus padding),
 * so callers can refuse a size before allocating it. */
cg_status cg_grid_bytes(uint32_t width, uint32_t height, uint64_t *bytes);

uint32_t cg_grid_width(const cg_grid *grid);
uint32_t cg_grid_height(const cg_grid *grid);

/* Cells outside the grid read as CG_WALL, as every neighbourhood count
 * in the library treats them. Writes outside the grid are ignored. */
cg_cell cg_grid_get(const cg_grid *grid, int64_t x, int64_t y);
void cg_grid_set(cg_grid *grid, int64_t x, int64_t y, cg_cell cell);

/* Markers: at most one per cell. Setting CG_MARK_NONE removes one.
 * Markers may only sit on floor (CG_EINVAL otherwise); making a marked cell
 * a wall through cg_grid_set removes its marker. */
cg_marker cg_grid_marker(const cg_grid *grid, int64_t x, int64_t y);
cg_status cg_grid_set_marker(cg_grid *grid, int64_t x, int64_t y, cg_marker marker);

/* The markers in (y, x) order: index 0..cg_grid_marker_count()-1. An index
 * out of range gives CG_EINVAL. Any change to the grid may renumber them. */
size_t cg_grid_marker_count(const cg_grid *grid);
cg_status cg_grid_marker_at(const cg_grid *grid, size_t index, uint32_t *x, uint32_t *y,
                            cg_marker *kind);

/* Number of floor cells. */
uint64_t cg_grid_floor_count(const cg_grid *grid);

/* What cg_grid_copy writes per cell. */
typedef enum cg_copy_mode {
    CG_COPY_CELLS = 0, /* CG_FLOOR (0) or CG_WALL (1): markers are floor */
    CG_COPY_SYMBOLS    /* the ASCII format's characters: '#', '.', and the markers' */
} cg_copy_mode;

/* Copies every cell into out, row y at out + y * stride (stride >= the
 * width; the bytes past the width are left alone): one call for a whole map
 * instead of one cg_grid_get per cell. CG_EINVAL for a NULL argument, a
 * short stride or an unknown mode. Since 1.1. */
cg_status cg_grid_copy(const cg_grid *grid, uint8_t *out, size_t stride, cg_copy_mode mode);

/* Kinds of points of interest (since 1.1; docs/placement.md, "Kinds of
 * points"). A point of interest (CG_MARK_POI) is a plain point, written '*',
 * or a point of a named kind, written with the kind's letter 'A'..'Z' (a
 * `poi kind=chest` step names its letter; a letter read from an ASCII map is
 * unnamed). */

/* The ASCII character of the marker at (x, y): '<', '>', 'x', '*' for a
 * plain point of interest, 'A'..'Z' for a point of a named kind; 0 when the
 * cell has no marker or lies outside the map. */
char cg_grid_marker_symbol(const cg_grid *grid, int64_t x, int64_t y);

/* The name of the kind of points written `symbol` ('A'..'Z') on this map:
 * the name a `poi kind=NAME` step or cg_grid_set_point gave the letter, or,
 * when none did (a map read from ASCII), the letter itself ("A"). NULL for
 * any other character ('*' included). The string belongs to the grid, valid
 * until it is changed or freed. */
const char *cg_grid_point_kind_name(const cg_grid *grid, char symbol);

/* Places a point of interest at (x, y), replacing any marker there: symbol
 * '*' a plain point (name must be NULL), or 'A'..'Z' a point of that kind,
 * naming the kind `name` when not NULL (1..32 ASCII letters, digits, '_',
 * '-', starting with a letter; not entrance, exit, poi or blocked). CG_EINVAL
 * off the map, on a wall, for another symbol, an invalid name, or a letter
 * the map already names otherwise; CG_ENOMEM. */
cg_status cg_grid_set_point(cg_grid *grid, int64_t x, int64_t y, char symbol, const char *name);

/* ---------------------------------------------------------------- reach */

/* Reach (the reachable-cells article, docs/algorithms.md): from one or more
 * start cells and a budget of moves, the floor cells a unit can reach in
 * 4-neighbour steps, never entering walls or blocked cells, each with its
 * distance to the nearest start. */

#define CG_MOVES_UNLIMITED UINT32_MAX
#define CG_UNREACHED UINT32_MAX

typedef struct cg_point {
    uint32_t x, y;
} cg_point;

/* Computes the reach from starts[0..nstarts-1] within max_moves moves
 * (CG_MOVES_UNLIMITED: no budget) and attaches it to grid, replacing an
 * earlier one; writers overlay it. Starts must be inside the map and on
 * floor (else CG_EINVAL, with a diag naming the start); a start may be a
 * blocked cell (the unit's own, at distance 0), and no other blocked cell
 * is entered. The cost is proportional to the area within max_moves of the
 * starts, not to the map. */
cg_status cg_grid_reach(cg_grid *grid, const cg_point *starts, size_t nstarts,
                        uint32_t max_moves, cg_diag *diag);

/* The reach of cg_grid_reach without attaching it: the map is only read,
 * and the distances go into dist, row y at dist + y * stride (stride >= the
 * width), CG_UNREACHED where no start reaches; *reached (may be NULL) gets
 * the cells reached. Errors as cg_grid_reach's. Since 1.1. */
cg_status cg_grid_distances(const cg_grid *grid, const cg_point *starts, size_t nstarts,
                            uint32_t max_moves, uint32_t *dist, size_t stride, uint64_t *reached,
                            cg_diag *diag);

/* The shortest path from `from` to `to` as a unit moves (4-neighbour steps,
 * never into a wall or a blocked cell; `from` may be a blocked cell, the
 * unit's own): path[0] = from ... path[*len - 1] = to, *len = steps + 1,
 * into path (room for cap points). Of the shortest paths it is the one that,
 * walked back from `to`, always steps up, left, right or down in that order
 * of preference: the same path every time. *len = 0 (CG_OK) when `to`
 * cannot be reached; CG_EOVERFLOW with *len the points needed when cap is
 * too small; CG_EINVAL when either end is not a floor cell of the map. The
 * map is only read. Since 1.1. */
cg_status cg_grid_path(const cg_grid *grid, cg_point from, cg_point to, cg_point *path,
                       size_t cap, size_t *len, cg_diag *diag);

/* A region of floor cells (4-connected), as cg_grid_regions lists them. */
typedef struct cg_region {
    uint64_t cells;
    uint32_t x0, y0, x1, y1; /* its bounding box, inclusive */
    cg_point first;          /* its first cell in (y, x) order */
} cg_region;

/* The floor regions: regions[0 .. *count - 1] in the order of their first
 * cells (room for cap; CG_EOVERFLOW, with *count the number, when more),
 * and when labels is not NULL the region of every cell, row y at labels +
 * y * stride (stride >= the width): 1 + its index in the list, 0 for a
 * wall. Markers and blocked cells are floor (the cave's shape, as --stats
 * counts regions). regions may be NULL with cap 0 to count them. Since
 * 1.1. */
cg_status cg_grid_regions(const cg_grid *grid, uint32_t *labels, size_t stride, cg_region *regions,
                          size_t cap, size_t *count, cg_diag *diag);

/* The distance of (x, y) in the attached reach, or CG_UNREACHED (also when
 * there is no reach). */
uint32_t cg_grid_distance(const cg_grid *grid, int64_t x, int64_t y);

/* Cells reached by the attached reach (0 without one). */
uint64_t cg_grid_reached_count(const cg_grid *grid);

/* Drops the attached reach, if any. */
void cg_grid_clear_reach(cg_grid *grid);

/* ------------------------------------------------------------ pipelines */

typedef struct cg_pipeline cg_pipeline;

/* An empty pipeline (no steps, default size 80x50). */
cg_status cg_pipeline_new(cg_pipeline **out);
void cg_pipeline_free(cg_pipeline *pipeline);

/* Parses preset text (one step per line, '#' comments) and appends its steps.
 * On CG_EPARSE the pipeline is unchanged and diag has the line and column of
 * the fault within text. text need not be NUL-terminated. */
cg_status cg_pipeline_parse(cg_pipeline *pipeline, const char *text, size_t len, cg_diag *diag);

/* Number of steps (a `size` line sets the default size and is not a step). */
size_t cg_pipeline_step_count(const cg_pipeline *pipeline);

/* The default size: from the last `size` line that gives one, else 80x50. */
void cg_pipeline_default_size(const cg_pipeline *pipeline, uint32_t *width, uint32_t *height);

/* The smallest map the pipeline is made for: from the last `size min=WxH`
 * line, else 1x1. cg_pipeline_run and cg_pipeline_memory refuse a smaller
 * map (an input map too) with CG_EINVAL and a diag naming the size that
 * works. Since 1.1. */
void cg_pipeline_min_size(const cg_pipeline *pipeline, uint32_t *width, uint32_t *height);

/* Nonzero if running the pipeline consumes the seed (it has a random step),
 * so a caller knows whether the seed matters for reproducing a map. */
int cg_pipeline_uses_seed(const cg_pipeline *pipeline);

#define CG_DEFAULT_ATTEMPTS 100u
#define CG_MAX_ATTEMPTS 1000000u

/* A parallel loop supplied by the caller, so that the library never starts
 * threads of its own: call task(arg, i) once for every i in 0..n-1, on any
 * threads in any order, and return when every call has returned. */
typedef void (*cg_parallel_fn)(void *ctx, size_t n, void (*task)(void *arg, size_t i),
                               void *arg);

/* What to run a pipeline on; zero-initialise for defaults, then set fields by
 * name: a zero field means the default, in this and every later 1.x version. */
typedef struct cg_run_options {
    uint64_t seed;
    uint32_t width, height; /* the result's size; 0: the pipeline's default */
    const cg_grid *input;   /* start from a copy of this map; width, height ignored */
    uint32_t max_attempts;  /* 1..CG_MAX_ATTEMPTS; 0: CG_DEFAULT_ATTEMPTS */
    uint64_t max_memory;    /* bytes the run may hold allocated at once; 0: no limit.
                             * A run whose grids (cg_pipeline_memory) are over it
                             * fails at once, and one whose map needs more (region
                             * labels, queues) fails at the step that would pass it:
                             * CG_ENOMEM, info->over_budget set, diag saying so. A
                             * budget of a successful run's peak_memory is enough */
    /* Scale (docs/scale.md) */
    cg_parallel_fn parallel; /* NULL: one thread. Big maps split their fill and
                              * automaton passes into stripes of rows; the map
                              * does not depend on it */
    void *parallel_ctx;      /* passed to parallel */
    int chunk;               /* nonzero: the map is the width x height window of the
                              * infinite cave whose top-left cell is (origin_x,
                              * origin_y): no outer ring, and windows that meet
                              * agree cell for cell. Local steps only, no input */
    int64_t origin_x, origin_y; /* with chunk: |origin| <= 2^62 */
    uint64_t reserved[8];       /* zero: room for fields of later minor versions
                                 * without an ABI break. Nonzero: CG_EINVAL (the
                                 * program needs a later library) */
} cg_run_options;

/* How a run went. */
typedef struct cg_run_info {
    uint32_t attempts; /* attempts made, 1 if the first one met every requirement */
    uint64_t seed;     /* the seed the last attempt ran with (the given one for the
                        * first); running with it reproduces the map in one attempt */
    uint64_t peak_memory; /* the most the library held allocated at once during the run
                           * (map, buffers, the steps' work; libpng's own excluded) */
    int over_budget;      /* with CG_ENOMEM: the run stopped at max_memory (not a
                           * failed allocation) */
} cg_run_info;

/* Runs the pipeline with options (NULL: all defaults, seed 0 and the
 * pipeline's default size). It starts from a copy of options->input if set,
 * else from an all-wall grid of width x height, enlarged for any `downscale`
 * steps. When a requirement (`entrance`, `exit`, `poi`, `occupy`, `require`)
 * fails, the whole pipeline runs again with the next attempt's seed
 * (docs/placement.md), up to max_attempts, then returns CG_EFAIL with diag
 * naming the requirement. A pipeline that cannot run whatever the seed (two
 * kinds of points given one letter) returns CG_EINVAL at once, diag saying
 * why.
 * In chunk mode a step that needs the whole map, an input map or a window too
 * large for its halo is CG_EINVAL with diag saying why. info (may be NULL) is
 * filled whatever the result. On success *out is a new grid the caller
 * frees. */
cg_status cg_pipeline_run(const cg_pipeline *pipeline, const cg_run_options *options,
                          cg_grid **out, cg_run_info *info, cg_diag *diag);

/* The size a run producing a width x height map starts at (0: the default
 * size): larger by the product of the pipeline's `downscale` factors. Returns
 * CG_EINVAL, with *start_w, *start_h unset, if that exceeds CG_MAX_DIM. */
cg_status cg_pipeline_start_size(const cg_pipeline *pipeline, uint32_t width, uint32_t height,
                                 uint32_t *start_w, uint32_t *start_h);

/* ---------------------------------------------------------------- scale */

/* The halo of a chunk: how far beyond its window the pipeline's local steps
 * (fill, generations, smooth, rule) read, summed over their passes. CG_EINVAL
 * with diag naming the first step that needs the whole map. */
cg_status cg_pipeline_chunk_halo(const cg_pipeline *pipeline, uint32_t *halo, cg_diag *diag);

/* A lower bound of the memory a run with options (NULL: all defaults) holds
 * at its peak: its grids (the map, the second buffer of the automaton steps,
 * a chunk's halo, placement's copy), which every run that succeeds
 * allocates, so a caller can refuse a size before allocating anything. The
 * steps' own arrays depend on the map (region labels, queues, candidate
 * lists) and come on top; max_memory
 * counts them during the run. CG_EINVAL for a size the run would refuse,
 * CG_EOVERFLOW if the figure does not fit. */
cg_status cg_pipeline_memory(const cg_pipeline *pipeline, const cg_run_options *options,
                             uint64_t *bytes);

/* ------------------------------------------------------------- analysis */

/* Figures about a map, for scripts that pick maps (docs/placement.md). */
typedef struct cg_stats {
    uint32_t width, height;
    uint64_t floor;          /* floor cells (markers sit on floor) */
    uint64_t regions;        /* 4-connected floor regions */
    uint64_t largest_region; /* cells of the largest one; 0 without floor */
    uint64_t dead_ends;      /* floor cells with exactly one floor 4-neighbour */
    uint64_t points;         /* points of interest, of every kind ('*', 'A'..'Z') */
    int64_t path_length;     /* fewest 4-neighbour steps from the entrance to the exit,
                              * never entering a blocked cell; -1 without both or
                              * when the exit is unreachable */
} cg_stats;

/* How cg_grid_stats works; zero-initialise for defaults. */
typedef struct cg_stats_options {
    uint64_t max_memory; /* bytes the figures may allocate at once; 0: no limit. Over
                          * it: CG_ENOMEM with diag saying so, as
                          * cg_run_options.max_memory */
    uint64_t reserved[4]; /* zero: room for fields of later minor versions
                           * without an ABI break. Nonzero: CG_EINVAL */
} cg_stats_options;

/* Computes the figures of grid into *stats, with options (NULL: no limit).
 * CG_ENOMEM, with diag (may be NULL) saying why, if the scratch memory (one
 * grid, and region labels, which depend on the map) cannot be allocated or
 * is over max_memory. */
cg_status cg_grid_stats(const cg_grid *grid, const cg_stats_options *options, cg_stats *stats,
                        cg_diag *diag);

/* ------------------------------------------------------ built-in presets */

/* Built-in presets, compiled from the files presets/NAME.preset. Index 0..count-1.
 * Names and texts are static; cg_preset_builtin returns NULL for an unknown
 * name and sets *len to the text's length. */
size_t cg_preset_count(void);
const char *cg_preset_name(size_t index);
const char *cg_preset_summary(size_t index);
const char *cg_preset_builtin(const char *name, size_t *len);

/* Settings: a preset's values changed without copying it. Each setting is
 * "NAME=VALUE", NAME one of STEP (the step's own value, as in `fill 45`),
 * STEP.KEY (a key, `poi.count=4`), STEP.FLAG=yes|no (a bare word,
 * `maze.loops=no`), and for a step with several lines STEP.N and STEP.N.KEY
 * (the N-th line, from 1: `rule.2.floor=5..9`). cg_preset_apply writes text
 * with the settings applied into out (at most cap bytes, not NUL-terminated)
 * and the length in *out_len: lines that no setting addresses are kept byte
 * for byte, a changed line is rewritten with its comment kept, and a key or
 * flag the line lacks is added. cap >= len + the sum of (strlen(setting) +
 * 3) always suffices; with less, CG_EOVERFLOW and *out_len the bytes needed.
 * A setting that names no step or option of it, addresses no line or an
 * ambiguous one, or gives a value the step refuses is CG_EINVAL with diag
 * quoting the setting. Since 1.1. */
cg_status cg_preset_apply(const char *text, size_t len, const char *const *settings,
                          size_t nsettings, char *out, size_t cap, size_t *out_len,
                          cg_diag *diag);

/* The settings a preset text offers: one "NAME=VALUE\n" line per value of
 * its step lines (size lines aside), with the value it has, in the order of
 * the text - each a valid argument of cg_preset_apply. Writes at most cap
 * bytes to out and the length in *out_len; CG_EOVERFLOW when cap is too
 * small (*out_len: the bytes needed; 2 * len + 64 per line suffices). Since 1.1. */
cg_status cg_preset_settings(const char *text, size_t len, char *out, size_t cap,
                             size_t *out_len);

/* -------------------------------------------------------- input, output */

/* Reads an ASCII map: '#' wall, '.' or ' ' floor, '<' '>' '*' 'x' floor with
 * a marker, 'A'-'Z' floor with a point of interest of that letter's kind
 * (unnamed: cg_grid_point_kind_name gives the letter), reach distances
 * '0'-'9' 'a'-'z' (except 'x') and '+' as floor.
 * Rows end with "\n" or "\r\n"; all rows must have the same width. On
 * CG_EPARSE diag holds the line and column of the fault. */
cg_status cg_read_ascii(const char *text, size_t len, cg_grid **out, cg_diag *diag);

typedef enum cg_format {
    CG_FORMAT_AUTO = -1, /* cg_write_file: from the file name's extension. Since 1.1 */
    CG_FORMAT_ASCII = 0,
    CG_FORMAT_PNG,
    CG_FORMAT_JSON, /* rows plus metadata (docs/formats.md) */
    CG_FORMAT_TMX,  /* Tiled map, XML; see CG_TILESET_IMAGE */
    CG_FORMAT_TMJ,  /* Tiled map, JSON; see CG_TILESET_IMAGE */
    CG_FORMAT_PBM,  /* netpbm P4 bitmap, black = wall, `scale` pixels per cell */
    CG_FORMAT_DISTANCES, /* CSV "x,y,distance" of the attached reach, scan order */
    CG_FORMAT_ANSI       /* a terminal picture: colour, two cells per character. Since 1.1 */
} cg_format;

/* Receives output bytes; returns 0 on success, nonzero to abort the write
 * (which then fails with CG_EIO). */
typedef int (*cg_write_fn)(void *ctx, const void *data, size_t len);

/* What is known of how a map was made, recorded by the formats that hold
 * metadata (JSON, TMX, TMJ). Zero-initialise, then fill in what is known. */
typedef struct cg_map_info {
    int has_seed;            /* nonzero: seed and run_seed are set */
    uint64_t seed;           /* the seed the run was given */
    uint64_t run_seed;       /* cg_run_info.seed: reproduces the map in one attempt */
    uint32_t attempts;       /* cg_run_info.attempts; 0: unknown */
    const char *preset_name; /* the preset's name or file, NUL-terminated; NULL: none */
    const char *preset_text; /* the pipeline as preset text (need not be NUL-terminated);
                              * NULL: unknown. Bytes that are not UTF-8 are written as U+FFFD */
    size_t preset_text_len;
} cg_map_info;

/* How to write a map; zero-initialise for defaults (ASCII). */
/* The pixels per cell of the image formats (cg_write_options.scale). */
#define CG_DEFAULT_SCALE 4u
#define CG_MAX_SCALE 64u

typedef struct cg_write_options {
    cg_format format;
    uint32_t scale;      /* PNG and PBM pixels per cell, 1..CG_MAX_SCALE; 0 means
                          * CG_DEFAULT_SCALE */
    uint64_t max_memory; /* bytes the writer may allocate at once (JSON's figures label
                          * the map's regions); 0: no limit. Over it: CG_ENOMEM with
                          * diag saying so, as cg_run_options.max_memory */
    const cg_map_info *info; /* NULL: nothing known; recorded by the formats that hold
                              * metadata, borrowed for the call */
    uint32_t columns;        /* ANSI: the widest the picture may be, in characters; a wider
                              * map is shown reduced, k x k cells per character column.
                              * 0: no limit (one column per cell). Since 1.1 */
    uint32_t reserved32;     /* zero */
    /* PNG: an image of 4 million cells or more is compressed in stripes of
     * rows, several at once through this loop (the caller's threads, as
     * cg_run_options.parallel); the bytes do not depend on it, and write is
     * only called from the calling thread. NULL: one thread. Each in a
     * 64-bit word of the former reserved room, whatever the pointers' size.
     * Since 1.2 */
    union {
        cg_parallel_fn parallel;
        uint64_t parallel_word_;
    };
    union {
        void *parallel_ctx; /* passed to parallel */
        uint64_t parallel_ctx_word_;
    };
    uint64_t reserved[1]; /* zero: room for fields of later minor versions
                           * without an ABI break. Nonzero: CG_EINVAL */
} cg_write_options;

/* Writes grid through write with options (NULL: ASCII, nothing known). The
 * bytes depend only on the grid and the options (info included).
 * CG_EUNSUPPORTED, before any write, for a format this build leaves out
 * (cg_format_available). */
cg_status cg_write(const cg_grid *grid, const cg_write_options *options, cg_write_fn write,
                   void *ctx, cg_diag *diag);

/* Nonzero if this build of the library can write format: every format can,
 * except CG_FORMAT_PNG in a build without libpng (the CMake option
 * CAVEGEN_PNG=OFF), where cg_write of it and cg_write_tileset_image (a PNG)
 * return CG_EUNSUPPORTED without writing a byte. 0 for an unknown format. */
int cg_format_available(cg_format format);

/* What a program writing maps needs to know of a format, so that it can
 * follow the library's table instead of a list of its own. */
typedef struct cg_format_info {
    const char *name;      /* "png": what cg_format_from_name takes */
    const char *extension; /* ".png": what cg_format_from_path recognises */
    const char *summary;   /* one line, for help texts */
    int binary;            /* bytes that are not text: not for a terminal */
    int stream;            /* several maps may follow one another in one stream */
    int tileset;           /* a file of it references CG_TILESET_IMAGE, beside it */
    int available;         /* cg_format_available(format) */
} cg_format_info;

/* The formats are the cg_format values 0 .. cg_format_count() - 1. */
size_t cg_format_count(void);
/* Fills *info for format; CG_EINVAL for a value that is no format. */
cg_status cg_format_describe(cg_format format, cg_format_info *info);

/* Format names: "ascii", "png", "json", "tmx", "tmj", "pbm", "distances"
 * (cg_format_describe gives each one's extension and properties). cg_format_name
 * returns a static string, NULL for an unknown format. cg_format_from_name
 * ignores ASCII case; CG_EINVAL for an unknown name. cg_format_from_path reads
 * the extension of the path's last component (".txt" is ascii); CG_EINVAL,
 * with *format unchanged, when it names no format. */
const char *cg_format_name(cg_format format);
cg_status cg_format_from_name(const char *name, cg_format *format);
cg_status cg_format_from_path(const char *path, cg_format *format);

/* Tiled maps (TMX, TMJ) embed their tileset, one CG_TILE_SIZE-pixel square
 * tile per kind of cell, and reference its image by the relative path
 * CG_TILESET_IMAGE: save that image beside the map. cg_write_tileset_image
 * writes it (a PNG; the same bytes for every map); CG_EUNSUPPORTED when
 * cg_format_available(CG_FORMAT_PNG) is 0. */
#define CG_TILE_SIZE 16u
#define CG_TILESET_IMAGE "cavegen-tiles.png"
cg_status cg_write_tileset_image(cg_write_fn write, void *ctx, cg_diag *diag);

/* Writes grid into the file path in one call, atomically: the bytes go to a
 * temporary file beside it, renamed over path only when complete, so a
 * failure leaves an earlier file as it was (an existing device or FIFO is
 * written in place). The format is options->format, or with options NULL
 * or CG_FORMAT_AUTO the one of path's extension (cg_format_from_path; no
 * extension: ASCII; an extension no format has: CG_EINVAL). A replaced file
 * keeps its mode; a new one gets 0666 less the umask. A Tiled map (TMX,
 * TMJ) also gets CG_TILESET_IMAGE in its folder unless one is there. Errors
 * name the file: CG_EIO (with the system's reason; also a symbolic link that
 * cannot be followed - a link is written through and kept), CG_EINVAL,
 * CG_EUNSUPPORTED (PNG in a build without it), or cg_write's. Since 1.1. */
cg_status cg_write_file(const cg_grid *grid, const char *path, const cg_write_options *options,
                        cg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
