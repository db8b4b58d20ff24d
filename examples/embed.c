/* embed.c - a game generating its level through libcavegen.
 *
 * The steps a game takes (docs/api.md): build a pipeline from a built-in
 * preset plus lines of its own, run it with the level's seed, read the cells
 * and markers into its own map, ask what a unit can reach, free everything.
 *
 * Build it against an installed cavegen, either way:
 *   cc embed.c $(pkg-config --cflags --libs cavegen) -o embed
 *   cmake -S examples -B build-example && cmake --build build-example
 * Run: ./embed [SEED]  - prints a few figures, then the map.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cavegen/cavegen.h>

/* The game's own map: one byte per cell. */
enum tile {
    TILE_ROCK = '#',
    TILE_GROUND = '.',
    TILE_DOOR = '<',
    TILE_STAIRS = '>',
    TILE_CHEST = '*',
    TILE_BOULDER = 'x'
};

static int fail(const char *what, cg_status st, const cg_diag *diag)
{
    /* diag->line and column point into preset text; 0 when they do not apply. */
    if (diag->line > 0)
        fprintf(stderr, "embed: %s: line %d, column %d: %s\n", what, diag->line, diag->column,
                diag->message);
    else
        fprintf(stderr, "embed: %s: %s\n", what,
                diag->message[0] ? diag->message : cg_strerror(st));
    return 1;
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 42;
    const uint32_t width = 60, height = 30;
    cg_diag diag = {0};
    cg_status st;
    int rc = 1;
    cg_pipeline *pipeline = NULL;
    cg_grid *map = NULL;
    char *tiles = NULL;

    /* 0. The library loaded at run time: its soname holds the major
     *    version, but it may be another 1.x than the header this was built
     *    with. A later one serves (docs/api.md, "Versions and ABI"). */
    if (cg_version() >> 16 != CG_VERSION_MAJOR || cg_version() < CG_VERSION_NUMBER) {
        fprintf(stderr, "embed: built for libcavegen %s, running with %s\n", CG_VERSION_STRING,
                cg_version_string());
        return 1;
    }

    /* 1. The pipeline: the "level" preset (a cave with an entrance, an exit
     *    and points of interest), then a step of our own. */
    size_t len = 0;
    const char *level = cg_preset_builtin("level", &len);
    const char *ours = "remove-walls min=4\n"; /* no lone boulders of rock */
    if (!level) {
        fprintf(stderr, "embed: this libcavegen has no 'level' preset\n");
        return 1;
    }
    if ((st = cg_pipeline_new(&pipeline)) != CG_OK ||
        (st = cg_pipeline_parse(pipeline, level, len, &diag)) != CG_OK ||
        (st = cg_pipeline_parse(pipeline, ours, strlen(ours), &diag)) != CG_OK) {
        rc = fail("pipeline", st, &diag);
        goto done;
    }

    /* 2. Run it with the level's seed. A requirement that fails (too little
     *    open floor) is retried with the next attempt's seed. A game holds
     *    level generation to a memory budget: a size or map that would need
     *    more fails with CG_ENOMEM and a message, instead of the process
     *    being killed. */
    cg_run_options options = {
        .seed = seed, .width = width, .height = height, .max_memory = 64u << 20};
    cg_run_info info;
    if ((st = cg_pipeline_run(pipeline, &options, &map, &info, &diag)) != CG_OK) {
        rc = fail("run", st, &diag);
        goto done;
    }

    /* 3. Into the game's own map: cells, then the markers on them. */
    tiles = malloc((size_t)width * height);
    if (!tiles) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++)
            tiles[(size_t)y * width + x] =
                (char)(cg_grid_get(map, x, y) == CG_WALL ? TILE_ROCK : TILE_GROUND);
    cg_point entrance = {0, 0}, exit = {0, 0};
    size_t chests = 0;
    for (size_t i = 0; i < cg_grid_marker_count(map); i++) {
        uint32_t x, y;
        cg_marker kind;
        if (cg_grid_marker_at(map, i, &x, &y, &kind) != CG_OK)
            continue;
        static const char marker_tile[] = {TILE_GROUND, TILE_DOOR, TILE_STAIRS, TILE_CHEST,
                                           TILE_BOULDER};
        tiles[(size_t)y * width + x] = marker_tile[kind];
        if (kind == CG_MARK_ENTRANCE)
            entrance = (cg_point){x, y};
        else if (kind == CG_MARK_EXIT)
            exit = (cg_point){x, y};
        else if (kind == CG_MARK_POI)
            chests++;
    }

    /* 4. What the player can reach in 12 moves from the door. */
    if ((st = cg_grid_reach(map, &entrance, 1, 12, &diag)) != CG_OK) {
        rc = fail("reach", st, &diag);
        goto done;
    }
    cg_stats stats;
    if ((st = cg_grid_stats(map, NULL, &stats, &diag)) != CG_OK) {
        rc = fail("stats", st, &diag);
        goto done;
    }

    printf("level %" PRIu32 "x%" PRIu32 " seed %" PRIu64 " attempts %" PRIu32 "\n", width, height,
           seed, info.attempts);
    printf("entrance %" PRIu32 ",%" PRIu32 " exit %" PRIu32 ",%" PRIu32 " chests %zu\n", entrance.x,
           entrance.y, exit.x, exit.y, chests);
    printf("floor_cells %" PRIu64 " path %" PRId64 " reach12 %" PRIu64 "\n", stats.floor,
           stats.path_length, cg_grid_reached_count(map));
    for (uint32_t y = 0; y < height; y++)
        printf("%.*s\n", (int)width, tiles + (size_t)y * width);
    rc = 0;

done:
    /* 5. Free: every *_free accepts NULL. */
    free(tiles);
    cg_grid_free(map);
    cg_pipeline_free(pipeline);
    return rc;
}
