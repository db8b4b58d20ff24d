/* force_paths.c - the determinism suite's way into the library's dispatch:
 * linked into a test build of the tool (cavegen_paths), it reads
 * CAVEGEN_TEST_PATHS before main and forces the code paths it names, so that
 * the same cases can be run once per path and their hashes compared.
 *
 *   CAVEGEN_TEST_PATHS=kernel=scalar,regions=base,reach=queue
 *     kernel=  scalar | vector | avx2 | avx512 | avx512vbmi2  (automaton, fill)
 *     regions= base | auto     (region labelling without / with popcnt+BMI)
 *     reach=   queue | bitboard | auto (distance search, whatever the budget)
 *   CAVEGEN_TEST_PATHS=list
 *     prints the kernel paths this build and CPU can take, one per line, and
 *     exits 0.
 *
 * A path the CPU cannot run exits with status 77 (the suite skips it); a
 * malformed value exits with 2. The shipped tool has none of this: forcing
 * a path is a test hook of the library, not part of its API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "regions/reach.h"
#include "regions/regions.h"

static void die(int status, const char *what, const char *value)
{
    fprintf(stderr, "cavegen_paths: CAVEGEN_TEST_PATHS: %s '%s'\n", what, value);
    exit(status);
}

static int kernel_by_name(const char *name)
{
    for (int p = 0; p < CG__PATH_COUNT; p++)
        if (strcmp(cg__kernel_path_name(p), name) == 0)
            return p;
    return CG__PATH_AUTO;
}

static void force(const char *key, const char *value)
{
    if (strcmp(key, "kernel") == 0) {
        int p = kernel_by_name(value);
        if (p == CG__PATH_AUTO && strcmp(value, "auto") != 0)
            die(2, "unknown kernel path", value);
        if (cg__set_kernel_path(p) != 0)
            die(77, "this CPU cannot run the kernel path", value);
    } else if (strcmp(key, "regions") == 0) {
        if (strcmp(value, "base") != 0 && strcmp(value, "auto") != 0)
            die(2, "unknown regions path", value);
        cg__regions_force_base(strcmp(value, "base") == 0);
    } else if (strcmp(key, "reach") == 0) {
        if (strcmp(value, "queue") == 0)
            cg__reach_force_path(0);
        else if (strcmp(value, "bitboard") == 0)
            cg__reach_force_path(1);
        else if (strcmp(value, "auto") == 0)
            cg__reach_force_path(-1);
        else
            die(2, "unknown reach path", value);
    } else {
        die(2, "unknown key", key);
    }
}

__attribute__((constructor)) static void force_paths(void)
{
    const char *env = getenv("CAVEGEN_TEST_PATHS");
    if (!env || !*env)
        return;
    if (strcmp(env, "list") == 0) {
        for (int p = 0; p < CG__PATH_COUNT; p++)
            if (cg__kernel_path_available(p))
                printf("%s\n", cg__kernel_path_name(p));
        exit(0);
    }
    char buf[256];
    if (strlen(env) >= sizeof buf)
        die(2, "too long", env);
    strcpy(buf, env);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (!eq)
            die(2, "expected key=value, got", item);
        *eq = '\0';
        force(item, eq + 1);
    }
}
