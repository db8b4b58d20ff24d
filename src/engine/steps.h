/* engine/steps.h - pipeline steps as data: a table of {name, syntax, parse, run}.
 * engine/preset.c tokenises a line and checks it against the step's syntax; the
 * step's parse function turns the values into parameters; engine/pipeline.c runs
 * the parsed steps in order. */
#ifndef CG_STEPS_H
#define CG_STEPS_H

#include "cells/par.h"
#include "core/grid.h"

#define CG__MAX_KEYS 8
#define CG__REACH_MAX_STARTS 32

/* A token of a preset line: its bytes and its 1-based column. */
typedef struct cg__token {
    const char *s;
    size_t len;
    int column;
} cg__token;

/* A line matched against a step's syntax. values[k] is the value of key k
 * (after the '='), or has s == NULL when absent. */
typedef struct cg__args {
    int line;
    cg__token name;
    cg__token positional; /* s == NULL when absent */
    cg__token values[CG__MAX_KEYS];
    unsigned flags; /* bit k set when bare word flags[k] is present */
} cg__args;

typedef struct cg__step {
    const struct cg__step_def *def;
    int line, column;
    uint32_t ordinal; /* among the pipeline's steps of the same kind */
    union {
        struct {
            uint32_t w, h;
        } size;
        struct {
            uint32_t ppb; /* wall probability in parts per billion */
        } fill;
        struct {
            uint32_t n;
            int r1, r2, self;
        } gen;
        struct {
            uint32_t n;
            int walls;
        } smooth;
        struct {
            uint32_t n;
            int lo, hi;
        } rule;
        struct {
            int connected, no_isolated;
            uint32_t loops_ppb; /* loop probability in parts per billion; 0 = no loops */
        } maze;
        struct {
            cg_point starts[CG__REACH_MAX_STARTS];
            uint32_t nstarts;
            int from_entrance; /* the entrance marker is a start too */
            uint32_t moves;    /* CG_MOVES_UNLIMITED when absent */
        } reach;
        struct {
            uint32_t k; /* block side, 1..CG__DOWNSCALE_MAX */
        } downscale;
        struct {
            uint32_t count, spacing;
        } poi;
        struct {
            uint32_t ppb; /* open>= threshold in parts per billion of the map */
        } require;
        struct {
            uint64_t min; /* remove-floor / remove-walls: regions under min cells go */
        } regions;
        struct {
            uint32_t width; /* corridor width, 1..CG__CONNECT_MAX_WIDTH */
        } connect;
    } u;
} cg__step;

/* The state a running pipeline hands to each step. */
typedef struct cg__run {
    cg_grid *grid;    /* the map being built */
    cg_grid *scratch; /* same size: the second buffer of double-buffered steps */
    uint64_t seed;
    cg_diag *diag;
    /* Placement (place/place.c), reset for every attempt. */
    int have_entrance_angle;           /* an `entrance` step ran: `exit` turns from its angle */
    uint32_t entrance_angle;           /* 65536 units per turn */
    cg_grid *connected;                /* the cells `entrance` left (owned): while the map still
                                        * equals them, all its floor is connected to the entrance */
    uint32_t connected_x, connected_y; /* where that entrance is */
    uint64_t fail_score; /* with CG_EFAIL: how close the attempt came (higher: closer) */
    /* Scale (docs/scale.md): stripes of rows for big maps, and chunk mode,
     * where grid cell (x, y) is world cell (origin_x + x, origin_y + y) of
     * the infinite cave and fill draws no ring. */
    const cg__par *par;
    int chunk;
    int64_t origin_x, origin_y;
} cg__run;

typedef struct cg__step_def {
    const char *name;
    const char *usage;               /* e.g. "generations N r1=A r2=B [self=yes|no]" */
    int positional;                  /* takes a positional argument */
    const char *keys[CG__MAX_KEYS];  /* recognised key=value keys */
    const char *flags[CG__MAX_KEYS]; /* recognised bare words */
    int is_setting;                  /* configures the pipeline, not a step that runs */
    int random;                      /* consumes the seed */
    cg_status (*parse)(cg__step *step, const cg__args *args, cg_diag *diag);
    cg_status (*run)(const cg__step *step, cg__run *run);
    /* Local steps (they may run in a chunk of the infinite cave): given the
     * depth of the band along the grid's edge that may differ from the
     * infinite cave before the step, the depth after it - larger by the
     * radius each pass reads, summed over the passes; a fill resets it to 0.
     * NULL: the step needs the whole map (docs/scale.md). */
    uint64_t (*chunk_margin)(const cg__step *step, uint64_t margin);
} cg__step_def;

extern const cg__step_def cg__step_defs[];
extern const size_t cg__step_def_count;

/* Number parsing for step arguments; on failure diag names `what` and the
 * token's position on `line`. */
cg_status cg__parse_int(const cg__token *tok, int line, const char *what, long lo, long hi,
                        long *out, cg_diag *diag);
/* A decimal percentage 0..100 with up to 7 decimals, in parts per billion. */
cg_status cg__parse_percent(const cg__token *tok, int line, const char *what, uint32_t *ppb,
                            cg_diag *diag);

/* engine/preset.c: parses text, appending steps to *steps (grown with realloc). */
cg_status cg__parse_steps(const char *text, size_t len, cg__step **steps, size_t *nsteps,
                          size_t *cap, cg_diag *diag);

/* place/maze.c: `maze [connected] [loops[=P%]] [no-isolated]` (seed 003). */
cg_status cg__maze_parse(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__maze_run(const cg__step *step, cg__run *run);

/* regions/reach.c: `reach from=X,Y[;X,Y...]|entrance [moves=M]`. */
cg_status cg__parse_reach(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_reach(const cg__step *step, cg__run *run);

/* cells/downscale.c: `downscale K` (seed 001). Steps before it run at K times the
 * size (cg__pipeline_start_size). */
#define CG__DOWNSCALE_MAX 16
cg_status cg__parse_downscale(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_downscale(const cg__step *step, cg__run *run);

/* place/place.c: `entrance`, `exit`, `poi count=K spacing=D`, `require open>=P%`
 * (seed 001, SPEC 3.2). A requirement that fails returns CG_EFAIL with the
 * reason in run->diag and run->fail_score set; the pipeline then retries. */
cg_status cg__parse_entrance(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_entrance(const cg__step *step, cg__run *run);
cg_status cg__run_exit(const cg__step *step, cg__run *run);
cg_status cg__parse_poi(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_poi(const cg__step *step, cg__run *run);
cg_status cg__parse_require(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_require(const cg__step *step, cg__run *run);

/* regions/regions.c: `remove-floor min=N`, `remove-walls min=N`, `keep-largest` (seed 002). */
cg_status cg__parse_remove(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__parse_keep_largest(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_remove_floor(const cg__step *step, cg__run *run);
cg_status cg__run_remove_walls(const cg__step *step, cg__run *run);
cg_status cg__run_keep_largest(const cg__step *step, cg__run *run);

/* engine/chunk.c: windows of the infinite cave (docs/scale.md). cg__chunk_halo: the
 * halo the steps need, or CG_EINVAL with *bad the index of the first step
 * that needs the whole map. cg__local_step_names: "fill, generations, ..."
 * for messages. cg__grid_crop: a new w x h grid holding the cells of src
 * from (x0, y0), which must lie inside src; no markers. */
cg_status cg__chunk_halo(const cg__step *steps, size_t n, uint64_t *halo, size_t *bad);
void cg__local_step_names(char *buf, size_t cap);
cg_status cg__grid_crop(cg_grid **out, const cg_grid *src, uint32_t x0, uint32_t y0, uint32_t w,
                        uint32_t h);

/* regions/connect.c: `connect [width=W]` (seed 002). */
#define CG__CONNECT_MAX_WIDTH 16
cg_status cg__parse_connect(cg__step *step, const cg__args *args, cg_diag *diag);
cg_status cg__run_connect(const cg__step *step, cg__run *run);

#endif
