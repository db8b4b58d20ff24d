/* engine/steps.h - pipeline steps as data: each step is a cg__step_def
 * (name, syntax, parse, run, properties). engine/preset.c tokenises a line
 * and checks it against the step's syntax; the step's parse function turns
 * the values into parameters; engine/pipeline.c runs the parsed steps in
 * order. */
#ifndef CG_STEPS_H
#define CG_STEPS_H

#include "cells/par.h"
#include "core/grid.h"
#include "core/rng.h"

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
            uint32_t w, h;         /* the default size; 0 when the line gives none */
            uint32_t min_w, min_h; /* the smallest map; 0 when the line gives none */
        } size;
        struct {
            uint32_t ppb; /* wall probability in parts per billion */
            int ring;     /* 1: the outer ring wall; 0: drawn as the rest */
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
            uint32_t for_w, for_h; /* for=WxH: count and spacing scale from that size; 0: fixed */
            uint8_t sym;                      /* '*', or the kind's letter 'A'..'Z' */
            char kind[CG__KIND_NAME_MAX + 1]; /* "" for plain points */
        } poi;
        struct {
            uint32_t count, spacing;
        } occupy;
        struct {
            int open;          /* open>= given */
            uint32_t ppb;      /* open>= threshold in parts per billion of the map */
            uint64_t regions;  /* regions= or regions<=: 0 when absent */
            int regions_up_to; /* regions<=N: 1..N regions; regions=N: exactly N */
        } require;
        struct {
            uint64_t min; /* remove-floor / remove-walls: regions under min cells go */
        } regions;
        struct {
            uint32_t width;   /* corridor width, 1..CG__CONNECT_MAX_WIDTH */
            uint32_t largest; /* join only this many largest regions; 0: all */
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

/* A step of the preset language: how a line is read, how it runs, and what
 * the engine must know of it without running it. Each step's file defines
 * one `const cg__step_def cg__step_NAME` with designated initialisers, the
 * indices of its keys named by an enum beside it; engine/step_table.c lists
 * them (docs/contributing.md). */
typedef struct cg__step_def {
    const char *name;
    const char *usage; /* e.g. "generations N r1=A r2=B [self=yes|no]" */
    int positional;    /* takes a positional argument */
    /* Recognised key=value keys: args->values[k] is the value of keys[k]. */
    const char *keys[CG__MAX_KEYS];
    /* Recognised bare words: bit k of args->flags is flags[k]. */
    const char *flags[CG__MAX_KEYS];
    /* Its stream of random numbers (CG__RAND_*, core/rng.h; never
     * renumbered); 0: the step draws nothing, so retrying cannot help. */
    uint32_t rand_kind;
    /* Configures the pipeline (size) instead of running: run is NULL. */
    int setting;
    /* The reach attached to the map survives this step (the reach step
     * itself); every other step drops it, since it may change the cells. */
    int keeps_reach;
    /* For the memory estimate: the step floods the map into a grid of its
     * own while it runs and keeps it afterwards, until the map changes
     * size (entrance). */
    int keeps_region;
    cg_status (*parse)(cg__step *step, const cg__args *args, cg_diag *diag);
    cg_status (*run)(const cg__step *step, cg__run *run);
    /* The factor both sides of the map are divided by (downscale): the
     * steps before it run that much larger. NULL: the size stays. */
    uint32_t (*shrink)(const cg__step *step);
    /* Local steps (they may run in a chunk of the infinite cave): given the
     * depth of the band along the grid's edge that may differ from the
     * infinite cave before the step, the depth after it - larger by the
     * radius each pass reads, summed over the passes; a fill resets it to 0.
     * NULL: the step needs the whole map (docs/scale.md). */
    uint64_t (*chunk_margin)(const cg__step *step, uint64_t margin);
} cg__step_def;

/* Every step, in the order messages list them (engine/step_table.c). */
extern const cg__step_def *const cg__steps[];
extern const size_t cg__step_count;

/* The key of the step's random stream under the run's seed. */
static inline uint64_t cg__step_rand_key(const cg__step *step, uint64_t seed)
{
    return cg__step_key(seed, step->def->rand_kind, step->ordinal);
}

/* Number parsing for step arguments; on failure diag names `what` and the
 * token's position on `line`. */
cg_status cg__parse_int(const cg__token *tok, int line, const char *what, long lo, long hi,
                        long *out, cg_diag *diag);
/* A decimal percentage 0..100 with up to 7 decimals, in parts per billion. */
cg_status cg__parse_percent(const cg__token *tok, int line, const char *what, uint32_t *ppb,
                            cg_diag *diag);
/* WIDTHxHEIGHT, each side 1..CG_MAX_DIM; `what` names it in messages. */
cg_status cg__parse_dims(const cg__token *tok, int line, const char *what, uint32_t *w,
                         uint32_t *h, cg_diag *diag);
/* "NAME needs WHAT (usage: ...)" at the step's name; CG_EPARSE. */
cg_status cg__step_missing(const cg__step *step, const cg__args *a, const char *what,
                           cg_diag *diag);

/* engine/preset.c: the step name nearest to a mistyped one, or NULL. */
const char *cg__nearest_step(const char *word, size_t len);

/* engine/preset.c: splits one line into tokens, dropping a '#' comment;
 * returns the count or -1 if there are more than cap. */
int cg__tokenize(const char *s, size_t len, cg__token *tok, int cap);

/* engine/preset.c: parses text, appending steps to *steps (grown with realloc). */
cg_status cg__parse_steps(const char *text, size_t len, cg__step **steps, size_t *nsteps,
                          size_t *cap, cg_diag *diag);

/* The limits steps share with the public API's checks. */
#define CG__DOWNSCALE_MAX 16
#define CG__CONNECT_MAX_WIDTH 16

/* engine/chunk.c: windows of the infinite cave (docs/scale.md). cg__chunk_halo: the
 * halo the steps need, or CG_EINVAL with *bad the index of the first step
 * that needs the whole map. cg__local_step_names: "fill, generations, ..."
 * for messages. cg__grid_crop: a new w x h grid holding the cells of src
 * from (x0, y0), which must lie inside src; no markers. */
cg_status cg__chunk_halo(const cg__step *steps, size_t n, uint64_t *halo, size_t *bad);
void cg__local_step_names(char *buf, size_t cap);
cg_status cg__grid_crop(cg_grid **out, const cg_grid *src, uint32_t x0, uint32_t y0, uint32_t w,
                        uint32_t h);

#endif
