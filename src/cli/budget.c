/* budget.c - the memory budget of a run (docs/cli.md "The memory budget"):
 * a size too big for memory fails before allocating, never by the OOM
 * killer. Linux overcommits, so an allocation the machine cannot back may
 * succeed and the run then be killed halfway; so the run's estimated peak is
 * checked here before it starts, and each map then runs with its share of
 * the budget as the library's cg_run_options.max_memory, which also bounds
 * what depends on the map (region labels, queues). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "messages.h"

#define MIB (UINT64_C(1) << 20)

/* The number after "name" (followed by ':' or ' ') on a line of the file
 * dir/file (file NULL: dir is the file); 0 if absent. */
static uint64_t field_in(const char *dir, const char *file, const char *name)
{
    char path[4096], line[512];
    unsigned long long v = 0;
    size_t n = strlen(name);
    FILE *fp;

    if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, file ? "/" : "", file ? file : "") >=
            sizeof path ||
        !(fp = fopen(path, "r")))
        return 0;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, name, n) == 0 && (line[n] == ':' || line[n] == ' ')) {
            if (sscanf(line + n + 1, "%llu", &v) != 1)
                v = 0;
            break;
        }
    fclose(fp);
    return (uint64_t)v;
}

/* The number the file dir/file holds; 0 if unreadable or not a number
 * ("max"). */
static uint64_t number_in(const char *dir, const char *file)
{
    char path[4096];
    unsigned long long v = 0;
    FILE *fp;

    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path ||
        !(fp = fopen(path, "r")))
        return 0;
    if (fscanf(fp, "%llu", &v) != 1)
        v = 0;
    fclose(fp);
    return (uint64_t)v;
}

/* What a control group still has room for: its limit less its usage, plus
 * the page cache it could drop (inactive files); UINT64_MAX without a
 * limit. v2 names the files memory.max, memory.current and memory.stat's
 * inactive_file; v1 memory.limit_in_bytes (a huge number when unlimited),
 * memory.usage_in_bytes and total_inactive_file. */
static uint64_t group_room(const char *dir, int v1)
{
    uint64_t limit = number_in(dir, v1 ? "memory.limit_in_bytes" : "memory.max");
    if (!limit || limit >= UINT64_C(1) << 62)
        return UINT64_MAX;
    uint64_t used = number_in(dir, v1 ? "memory.usage_in_bytes" : "memory.current");
    uint64_t cache = field_in(dir, "memory.stat", v1 ? "total_inactive_file" : "inactive_file");
    used = used > cache ? used - cache : 0;
    return used < limit ? limit - used : 0;
}

/* Nonzero if "memory" is one of the comma-separated controllers. */
static int has_memory(const char *controllers)
{
    size_t n;
    for (const char *t = controllers; *t; t += n + (t[n] == ',')) {
        n = strcspn(t, ",");
        if (n == 6 && strncmp(t, "memory", 6) == 0)
            return 1;
    }
    return 0;
}

/* The least room of the tool's control group and every group above it (a
 * parent's limit holds its children too). The group is the path in
 * proc_cgroup ("0::/path" for v2; "N:...,memory,...:/path" for v1), under
 * root (v1: root/memory). Where that folder does not exist (the path is the
 * host's, outside a cgroup namespace), only the top group is read. */
static uint64_t cgroup_room(const char *proc_cgroup, const char *root)
{
    FILE *fp = fopen(proc_cgroup, "r");
    char line[4096], dir[4096] = "", top[4096] = "";
    int v1 = 0;
    struct stat st;

    if (!fp)
        return UINT64_MAX;
    while (!v1 && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        if (strcmp(line, "0") == 0 && c1[1] == '\0' && !dir[0]) {
            snprintf(top, sizeof top, "%s", root); /* v2: one hierarchy */
            snprintf(dir, sizeof dir, "%s%s", root, c2 + 1);
        } else if (has_memory(c1 + 1)) { /* v1 wins: it holds the limits then */
            snprintf(top, sizeof top, "%s/memory", root);
            snprintf(dir, sizeof dir, "%s/memory%s", root, c2 + 1);
            v1 = 1;
        }
    }
    fclose(fp);
    if (!dir[0])
        return UINT64_MAX;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        snprintf(dir, sizeof dir, "%s", top);
    uint64_t room = UINT64_MAX;
    const size_t top_len = strlen(top);
    for (;;) {
        uint64_t r = group_room(dir, v1);
        room = r < room ? r : room;
        char *slash = strrchr(dir, '/');
        if (strlen(dir) <= top_len || !slash || (size_t)(slash - dir) < top_len)
            break;
        *slash = '\0';
    }
    return room;
}

uint64_t cli_memory_room(const char *meminfo, const char *proc_cgroup, const char *cgroup_root)
{
    /* MemAvailable: the kernel's estimate of what new allocations can get
     * without swapping (free memory plus reclaimable caches). */
    uint64_t kb = field_in(meminfo, NULL, "MemAvailable");
    uint64_t avail = kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
    if (!avail) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            avail = (uint64_t)pages > UINT64_MAX / (uint64_t)page ? UINT64_MAX
                                                                  : (uint64_t)pages * (uint64_t)page;
    }
    /* In a container the limit is the control group's, which MemAvailable
     * does not show. */
    uint64_t room = cgroup_room(proc_cgroup, cgroup_root);
    if (room != UINT64_MAX && (!avail || room < avail))
        avail = room ? room : 1; /* a full group: a budget of nothing, not none */
    /* Less a sixteenth for what the budget does not count: libc's and
     * libpng's own memory, the tool's buffers, fragmentation. */
    return avail - avail / 16;
}

uint64_t cli_memory_available(void)
{
    return cli_memory_room("/proc/meminfo", "/proc/self/cgroup", "/sys/fs/cgroup");
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
    cg_status st = cli_batch_memory(run, &per_map, &at_once);
    if (st != CG_OK) {
        /* A run the library refuses: the run says why. */
        if (st == CG_EINVAL || run->opt->have_chunk || run->input)
            return CLI_EXIT_OK;
        uint32_t start_w = 0, start_h = 0; /* the plan was valid: this succeeds */
        cg_pipeline_start_size(run->pipeline, run->width, run->height, &start_w, &start_h);
        size_error(start_w, start_h);
        return CLI_EXIT_FAILURE;
    }
    run->map_memory = budget / at_once;
    uint64_t total = per_map > UINT64_MAX / at_once ? UINT64_MAX : per_map * at_once;
    if (budget && total > budget) {
        char need[32], limit[32];
        cg_format_bytes(need, total, 1);
        cg_format_bytes(limit, budget, 0);
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
