/* budget.c - the memory budget of a run (SPEC 7, docs/cli.md "The memory
 * budget"): a size too big for memory fails before allocating, never by the
 * OOM killer. Linux overcommits, so an allocation the machine cannot back may
 * succeed and the run then be killed halfway; so the run's estimated peak is
 * checked here before it starts, and each map then runs with its share of
 * the budget as the library's cg_run_options.max_memory, which also bounds
 * what depends on the map (region labels, queues). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MIB (UINT64_C(1) << 20)

/* The number after "Name:" in /proc/meminfo, in bytes; 0 if absent. */
static uint64_t meminfo(const char *name)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    size_t n = strlen(name);

    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, name, n) == 0 && line[n] == ':') {
            if (sscanf(line + n + 1, "%llu", &kb) != 1)
                kb = 0;
            break;
        }
    fclose(fp);
    return kb > UINT64_MAX / 1024 ? UINT64_MAX : (uint64_t)kb * 1024;
}

/* A number of bytes in a control-group file; 0 if unreadable or "max". */
static uint64_t cgroup_limit(const char *path)
{
    FILE *fp = fopen(path, "r");
    unsigned long long v = 0;

    if (!fp)
        return 0;
    if (fscanf(fp, "%llu", &v) != 1)
        v = 0;
    fclose(fp);
    return (uint64_t)v;
}

uint64_t cli_memory_available(void)
{
    /* MemAvailable: the kernel's estimate of what new allocations can get
     * without swapping (free memory plus reclaimable caches). */
    uint64_t avail = meminfo("MemAvailable");
    if (!avail) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            avail = (uint64_t)pages > UINT64_MAX / (uint64_t)page ? UINT64_MAX
                                                                  : (uint64_t)pages * (uint64_t)page;
    }
    /* In a container the limit is the control group's, which MemAvailable
     * does not show: cgroup v2's memory.max, or v1's limit_in_bytes (huge
     * when unlimited, so never the smaller). Only the group as mounted at
     * /sys/fs/cgroup is read, which is the container's own in a cgroup
     * namespace. */
    static const char *const limits[] = {"/sys/fs/cgroup/memory.max",
                                         "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        uint64_t v = cgroup_limit(limits[i]);
        if (v && (!avail || v < avail))
            avail = v;
    }
    /* Less a sixteenth for what the budget does not count: libc's and
     * libpng's own memory, the tool's buffers, fragmentation. */
    return avail - avail / 16;
}

/* A size for messages, as the library writes them (cg__format_bytes):
 * "512 KiB", "1.9 MiB", "24105 MiB"; rounded up (a need) or down (a
 * budget). */
static void format_bytes(char buf[32], uint64_t bytes, int up)
{
    static const char *const units[] = {"bytes", "KiB", "MiB"};
    const unsigned u = bytes >= MIB ? 2 : bytes >= 1024 ? 1 : 0, shift = 10 * u;
    const uint64_t round = up ? (UINT64_C(1) << shift) - 1 : 0;
    if (u && bytes < (UINT64_C(10) << shift)) { /* tenths: 10..99 */
        uint64_t t = (bytes * 10 + round) >> shift;
        if (t % 10 && t < 100) {
            snprintf(buf, 32, "%" PRIu64 ".%" PRIu64 " %s", t / 10, t % 10, units[u]);
            return;
        }
    }
    uint64_t whole = (bytes >> shift) + (up && (bytes & round) ? 1 : 0);
    snprintf(buf, 32, "%" PRIu64 " %s", whole, units[u]);
}

/* A start size whose grid alone does not fit in 64 bits. */
static void size_error(uint32_t width, uint32_t height)
{
    uint64_t bytes = 0;

    if (cg_grid_bytes(width, height, &bytes) == CG_OK)
        cli_error("out of memory for a %" PRIu32 "x%" PRIu32 " map (%" PRIu64 " MiB)", width,
                  height, (bytes + MIB - 1) / MIB);
    else
        cli_error("out of memory for a %" PRIu32 "x%" PRIu32 " map", width, height);
}

int cli_check_memory(struct cli_run *run)
{
    uint64_t per_map = 0, budget = run->opt->max_memory;
    unsigned at_once = 1;

    if (!budget)
        budget = cli_memory_available();
    run->map_memory = budget; /* refined below, once the maps at once are known */
    if (cli_batch_memory(run, &per_map, &at_once) != 0) {
        /* A size the run refuses: the run says why. */
        if (run->opt->have_chunk || run->input)
            return CLI_EXIT_OK;
        uint32_t start_w, start_h;
        if (cg_pipeline_start_size(run->pipeline, run->width, run->height, &start_w, &start_h) !=
            CG_OK)
            return CLI_EXIT_OK;
        size_error(start_w, start_h);
        return CLI_EXIT_FAILURE;
    }
    run->map_memory = budget / at_once;
    uint64_t total = per_map > UINT64_MAX / at_once ? UINT64_MAX : per_map * at_once;
    if (budget && total > budget) {
        char need[32], limit[32];
        format_bytes(need, total, 1);
        format_bytes(limit, budget, 0);
        if (at_once > 1)
            cli_error("%u %" PRIu32 "x%" PRIu32 " maps at once need at least %s, over the memory "
                      "budget of %s: use fewer -j or raise --max-memory",
                      at_once, run->width, run->height, need, limit);
        else
            cli_error("a %" PRIu32 "x%" PRIu32 " map needs at least %s, over the memory budget of "
                      "%s (--max-memory)",
                      run->width, run->height, need, limit);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}
