/* embed.c - a game generating its level through libcavegen.
 *
 * The steps a game takes (docs/api.md): build a pipeline from a built-in
 * preset plus lines of its own, run it with the level's seed, copy the cells
 * and markers into its own map in one call, find the route from the door to
 * the stairs and the caves of the level, ask what a unit can reach, free
 * everything.
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

    /* 3. Into the game's own map in one call: the ASCII characters, which
     *    are the game's tiles here ('#', '.', '<', '>', '*', 'x'). */
    tiles = malloc((size_t)width * height);
    if (!tiles) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }
    cg_grid_copy(map, (uint8_t *)tiles, width, CG_COPY_SYMBOLS);
    cg_point entrance = {0, 0}, exit = {0, 0};
    size_t chests = 0;
    for (size_t i = 0; i < cg_grid_marker_count(map); i++) {
        uint32_t x, y;
        cg_marker kind;
        if (cg_grid_marker_at(map, i, &x, &y, &kind) != CG_OK)
            continue;
        if (kind == CG_MARK_ENTRANCE)
            entrance = (cg_point){x, y};
        else if (kind == CG_MARK_EXIT)
            exit = (cg_point){x, y};
        else if (kind == CG_MARK_POI && tiles[(size_t)y * width + x] == TILE_CHEST)
            chests++;
    }

    /* 4. The route from the door to the stairs, cell by cell: what a
     *    companion would walk, or where a game lays its breadcrumbs. */
    cg_point *route = malloc((size_t)width * height * sizeof *route);
    size_t steps = 0;
    if (!route) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }
    st = cg_grid_path(map, entrance, exit, route, (size_t)width * height, &steps, &diag);
    free(route);
    if (st != CG_OK) {
        rc = fail("path", st, &diag);
        goto done;
    }

    /* 5. The caves of the level: one here (the preset connects them), with
     *    its size and bounding box; labels could go to a per-cell array. */
    cg_region caves[8];
    size_t ncaves = 0;
    st = cg_grid_regions(map, NULL, 0, caves, 8, &ncaves, &diag);
    if (st != CG_OK && st != CG_EOVERFLOW) {
        rc = fail("regions", st, &diag);
        goto done;
    }

    /* 6. What the player can reach in 12 moves from the door: distances
     *    into an array of the game's, the map left as it is. */
    uint32_t *dist = malloc((size_t)width * height * sizeof *dist);
    uint64_t reach12 = 0;
    if (!dist) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }
    st = cg_grid_distances(map, &entrance, 1, 12, dist, width, &reach12, &diag);
    free(dist);
    if (st != CG_OK) {
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
    printf("entrance %" PRIu32 ",%" PRIu32 " exit %" PRIu32 ",%" PRIu32 " chests %zu caves %zu",
           entrance.x, entrance.y, exit.x, exit.y, chests, ncaves);
    if (ncaves)
        printf(" (the first: %" PRIu64 " cells in %" PRIu32 "..%" PRIu32 " x %" PRIu32 "..%" PRIu32
               ")",
               caves[0].cells, caves[0].x0, caves[0].x1, caves[0].y0, caves[0].y1);
    printf("\nfloor_cells %" PRIu64 " path %" PRId64 " reach12 %" PRIu64 " route %zu\n",
           stats.floor, stats.path_length, reach12, steps ? steps - 1 : 0);
    for (uint32_t y = 0; y < height; y++)
        printf("%.*s\n", (int)width, tiles + (size_t)y * width);
    rc = 0;

done:
    /* 7. Free: every *_free accepts NULL. */
    free(tiles);
    cg_grid_free(map);
    cg_pipeline_free(pipeline);
    return rc;
}
