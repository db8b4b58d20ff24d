/* test_budget.c - the default memory budget of the tool (src/cli/budget.c,
 * cli_memory_room): MemAvailable, capped by the room left in the control
 * group and the groups above it, cgroup v1 and v2, on made-up trees. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
// clang-format off
#include <cmocka.h>
// clang-format on

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* budget.c's neighbour in batch.c, which these tests do not reach. */
cg_status cli_batch_memory(const struct cli_run *run, uint64_t *per_map, unsigned *at_once)
{
    (void)run;
    (void)per_map;
    (void)at_once;
    return CG_EINVAL;
}

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static uint64_t room(void)
{
    char meminfo[300], cgroup[300], mount[300];
    snprintf(meminfo, sizeof meminfo, "%s/proc/meminfo", root);
    snprintf(cgroup, sizeof cgroup, "%s/proc/self/cgroup", root);
    snprintf(mount, sizeof mount, "%s/sys/fs/cgroup", root);
    return cli_memory_room(meminfo, cgroup, mount);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/cavegen-budget-XXXXXX");
    assert_non_null(mkdtemp(root));
    put("proc/meminfo", "MemTotal:       16000000 kB\n"
                        "MemFree:         1000000 kB\n"
                        "MemAvailable:    8388608 kB\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

/* Outside any limit: MemAvailable (8 GiB) less a sixteenth. */
static void without_a_group_it_is_mem_available(void **state)
{
    (void)state;
    assert_int_equal(room(), 8 * GIB - 8 * GIB / 16);
    put("proc/self/cgroup", "0::/user.slice\n");
    put("sys/fs/cgroup/user.slice/memory.max", "max\n");
    assert_int_equal(room(), 8 * GIB - 8 * GIB / 16);
}

/* v2: the least room of the group and its parents, usage less the
 * inactive page cache. */
static void a_v2_group_and_its_parents_cap_it(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/a/b\n");
    put("sys/fs/cgroup/a/b/memory.max", "4294967296\n");
    put("sys/fs/cgroup/a/b/memory.current", "1073741824\n");
    put("sys/fs/cgroup/a/b/memory.stat", "anon 1\ninactive_file 536870912\nactive_file 3\n");
    assert_int_equal(room(), (GIB * 7 / 2) - (GIB * 7 / 2) / 16); /* 4 - (1 - 0.5) */
    put("sys/fs/cgroup/a/memory.max", "3221225472\n");
    put("sys/fs/cgroup/a/memory.current", "2147483648\n");
    assert_int_equal(room(), GIB - GIB / 16); /* the parent: 3 - 2 */
    /* Over its limit: a budget of almost nothing, never "no budget". */
    put("sys/fs/cgroup/a/memory.current", "4294967296\n");
    assert_int_equal(room(), 1);
}

/* Outside a cgroup namespace the path is the host's: the top group only. */
static void a_path_not_mounted_reads_the_top_group(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/system.slice/not-here.scope\n");
    put("sys/fs/cgroup/memory.max", "2147483648\n");
    put("sys/fs/cgroup/memory.current", "0\n");
    assert_int_equal(room(), 2 * GIB - 2 * GIB / 16);
}

/* v1: the memory hierarchy's group; a huge limit is no limit. */
static void a_v1_memory_group_caps_it(void **state)
{
    (void)state;
    put("proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n0::/\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "2147483648\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "1610612736\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.stat",
        "cache 5\ninactive_file 7\ntotal_inactive_file 268435456\n");
    put("sys/fs/cgroup/memory/docker/memory.limit_in_bytes", "9223372036854771712\n");
    assert_int_equal(room(), GIB * 3 / 4 - GIB * 3 / 4 / 16); /* 2 - (1.5 - 0.25) */
    /* "memory" must be a whole controller name. */
    put("proc/self/cgroup", "4:memoryx:/docker/abc\n");
    assert_int_equal(room(), 8 * GIB - 8 * GIB / 16);
}

/* Without MemAvailable: the physical memory, still capped by the group. */
static void without_mem_available_it_is_the_physical_memory(void **state)
{
    (void)state;
    put("proc/meminfo", "MemTotal: 1 kB\n");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t phys = (uint64_t)pages * (uint64_t)page;
    assert_int_equal(room(), phys - phys / 16);
    put("proc/self/cgroup", "0::/\n");
    put("sys/fs/cgroup/memory.max", "1048576\n");
    assert_int_equal(room(), MIB - MIB / 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(without_a_group_it_is_mem_available, setup, teardown),
        cmocka_unit_test_setup_teardown(a_v2_group_and_its_parents_cap_it, setup, teardown),
        cmocka_unit_test_setup_teardown(a_path_not_mounted_reads_the_top_group, setup, teardown),
        cmocka_unit_test_setup_teardown(a_v1_memory_group_caps_it, setup, teardown),
        cmocka_unit_test_setup_teardown(without_mem_available_it_is_the_physical_memory, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
