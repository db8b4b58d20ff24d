/* core/suggest.c - "did you mean": the known name nearest to a mistyped one
 * (cg_nearest_name), for the library's own messages and the tool's. */
#include <string.h>

#include "cavegen/cavegen.h"

#define MAX_LEN 64 /* longer words are never typos of a name */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The optimal string alignment distance of a[0..n) and b[0..m): insertions,
 * deletions, substitutions and swaps of two neighbours each cost 1, so
 * "smoth" is 1 from "smooth" and "fiil" 1 from "fill". ASCII letters
 * compare without case. */
static size_t distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t rows[3][MAX_LEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            int ca = lower(a[i - 1]), cb = lower(b[j - 1]);
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == lower(b[j - 2]) && lower(a[i - 2]) == cb &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

const char *cg_nearest_name(const char *word, size_t len, const char *const *names, size_t n)
{
    if (!word || !names || len == 0 || len > MAX_LEN)
        return NULL;
    /* Close enough to be a typo: a third of the word's length, at least 1;
     * also a name the word starts or ends (a prefix typed, "remove" for
     * "remove-floor"). Ties go to the first name. */
    size_t limit = len / 3 > 1 ? len / 3 : 1, best_d = (size_t)-1;
    const char *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        size_t m = strlen(names[i]);
        if (m > MAX_LEN)
            continue;
        size_t d = distance(word, len, names[i], m);
        if (d <= limit && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    if (best)
        return best;
    for (size_t i = 0; i < n; i++)
        if (names[i] && len >= 3 && strlen(names[i]) > len && strncmp(names[i], word, len) == 0)
            return names[i];
    return NULL;
}
