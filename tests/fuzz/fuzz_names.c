/* fuzz_names.c - the output names of a batch (src/cli/pattern.c): the -o
 * pattern's check and formatter, and the file-name checks, on arbitrary
 * patterns and indexes. The input is an 8-byte index (little-endian), then
 * the pattern (up to a NUL byte).
 *
 * Invariants: cli_pattern_check returns 0, or -1 with a one-line reason. A
 * pattern it accepts formats, for every index tried, to a nonempty name no
 * longer than the pattern plus one conversion's 85 bytes, the one printf's
 * %d gives for an int index; the names of different indexes differ, also
 * once normalised as the kernel would read them without links ("." and
 * ".." components, repeated slashes). cli_name_check agrees with a
 * reference written here.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>

#include "fuzz_common.h"
#include "pattern.h"

#define CONVERSION_MAX 85 /* 1 + 64 + 20: sign, padding, digits */

/* path normalised lexically: components "" and "." dropped, ".." removing
 * the one before it (or kept at the start of a relative path, dropped at
 * the root). A new string. */
static char *normalise(const char *path)
{
    size_t len = strlen(path);
    char *out = malloc(len + 2);
    size_t *starts = malloc((len + 1) * sizeof *starts); /* component starts in out */
    size_t n = 0, depth = 0, o = 0;
    int absolute = path[0] == '/';
    fuzz_check(out && starts);
    if (absolute)
        out[o++] = '/';
    for (const char *p = path; *p;) {
        p += strspn(p, "/");
        size_t c = strcspn(p, "/");
        if (c == 0 || (c == 1 && p[0] == '.')) {
            p += c;
            continue;
        }
        if (c == 2 && p[0] == '.' && p[1] == '.') {
            if (depth > 0) {
                o = starts[--n];
                depth--;
                p += c;
                continue;
            }
            if (absolute) {
                p += c;
                continue;
            }
        }
        if (o > (size_t)absolute)
            out[o++] = '/';
        starts[n++] = o > (size_t)absolute ? o - 1 : o;
        if (!(c == 2 && p[0] == '.' && p[1] == '.'))
            depth++;
        memcpy(out + o, p, c);
        o += c;
        p += c;
    }
    out[o] = '\0';
    free(starts);
    return out;
}

/* cli_name_check, written again the plain way. */
static int name_check_reference(const char *name)
{
    size_t len = strlen(name), run = 0;
    if (len == 0)
        return ENOENT;
    if (len >= PATH_MAX)
        return ENAMETOOLONG;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || name[i] == '/') {
            if (run > NAME_MAX)
                return ENAMETOOLONG;
            run = 0;
        } else {
            run++;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t index = 0;
    for (size_t i = 0; i < 8 && i < size; i++)
        index |= (uint64_t)data[i] << (8 * i);
    size_t off = size < 8 ? size : 8;
    char *pattern = malloc(size - off + 1);
    fuzz_check(pattern != NULL);
    memcpy(pattern, data + off, size - off);
    pattern[size - off] = '\0';

    fuzz_check(cli_name_check(pattern) == name_check_reference(pattern));

    const char *why = NULL;
    int rc = cli_pattern_check(pattern, &why);
    if (rc != 0) {
        fuzz_check(rc == -1 && why && why[0] && !strchr(why, '\n'));
        free(pattern);
        return 0;
    }
    const uint64_t indexes[] = {index, index + 1, index ^ 1, 0, 1, 10, INT_MAX, UINT64_MAX};
    enum { N = sizeof indexes / sizeof indexes[0] };
    char *names[N], *normal[N];
    for (size_t i = 0; i < N; i++) {
        names[i] = cli_pattern_format(pattern, indexes[i]);
        fuzz_check(names[i] != NULL);
        fuzz_check(names[i][0] != '\0');
        fuzz_check(strlen(names[i]) <= strlen(pattern) + CONVERSION_MAX);
        fuzz_check(cli_name_check(names[i]) == name_check_reference(names[i]));
        if (indexes[i] <= INT_MAX) {
            char want[4096 + CONVERSION_MAX];
            if (strlen(pattern) < 4096) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
                snprintf(want, sizeof want, pattern, (int)indexes[i]);
#pragma GCC diagnostic pop
                if (strcmp(want, names[i]) != 0)
                    fuzz_fail("'%s' of %d: '%s', printf '%s'", pattern, (int)indexes[i], names[i],
                              want);
            }
        }
        normal[i] = normalise(names[i]);
        fuzz_check(normal[i][0] != '\0');
        for (size_t j = 0; j < i; j++)
            if (indexes[j] != indexes[i] && strcmp(normal[j], normal[i]) == 0)
                fuzz_fail("'%s': maps %llu and %llu are both '%s'", pattern,
                          (unsigned long long)indexes[j], (unsigned long long)indexes[i],
                          normal[i]);
    }
    for (size_t i = 0; i < N; i++) {
        free(names[i]);
        free(normal[i]);
    }
    free(pattern);
    return 0;
}
