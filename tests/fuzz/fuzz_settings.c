/* fuzz_settings.c - a preset's settings (cg_preset_apply, what -D uses), the
 * list of them (cg_preset_settings) and "did you mean" (cg_nearest_name) on
 * arbitrary bytes. The input is the settings, one a line, then a NUL byte,
 * then the preset text.
 *
 * Invariants: nothing crashes or reads past its input; with the documented
 * room (len + the sum of strlen(setting) + 3) a call never overflows; a
 * refused setting comes with a message naming it; an applied text parses
 * whenever the original did, and applying the same settings again changes
 * nothing; the list of settings of a text that parses is itself a list of
 * settings the text accepts, and applying it leaves the text as it is (the
 * values are those it has); a near name is one of the names offered.
 */
#include "fuzz_common.h"

#define MAX_SETTINGS 16

static int parses(const char *text, size_t len)
{
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    if (cg_pipeline_new(&p) != CG_OK)
        return -1;
    cg_status st = cg_pipeline_parse(p, text, len, &diag);
    cg_pipeline_free(p);
    return st == CG_OK ? 1 : st == CG_EPARSE ? 0 : -1;
}

/* Applies set[0..n) to text into a new buffer with the documented room;
 * NULL when refused (the status in *st). */
static char *apply(const char *text, size_t len, const char *const *set, size_t n, size_t *out_len,
                   cg_status *st)
{
    size_t cap = len;
    for (size_t i = 0; i < n; i++)
        cap += strlen(set[i]) + 3;
    char *out = malloc(cap + 1);
    fuzz_check(out != NULL);
    cg_diag diag = {0};
    *st = cg_preset_apply(text, len, set, n, out, cap, out_len, &diag);
    if (*st == CG_EOVERFLOW)
        fuzz_fail("the documented room overflowed: %zu > %zu", *out_len, cap);
    if (*st != CG_OK) {
        if (*st != CG_EINVAL && *st != CG_ENOMEM)
            fuzz_fail("apply returned %d", (int)*st);
        if (*st == CG_EINVAL && strncmp(diag.message, "setting", 7) != 0)
            fuzz_fail("a refusal that names no setting: '%s'", diag.message);
        free(out);
        return NULL;
    }
    fuzz_check(*out_len <= cap);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t head = nul ? (size_t)(nul - data) : size;
    const char *text = nul ? (const char *)nul + 1 : "";
    size_t len = nul ? size - head - 1 : 0;

    /* The settings: the lines of the head, NUL-terminated copies. */
    char *lines = malloc(head + 1);
    fuzz_check(lines != NULL);
    memcpy(lines, data, head);
    lines[head] = '\0';
    const char *set[MAX_SETTINGS];
    size_t n = 0;
    for (char *p = lines; *p && n < MAX_SETTINGS;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        set[n++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }

    int before = parses(text, len);
    size_t out_len = 0;
    cg_status st;
    char *out = apply(text, len, set, n, &out_len, &st);
    if (out) {
        int after = parses(out, out_len);
        if (before == 1 && after == 0)
            fuzz_fail("settings the check let through made a text that does not parse");
        /* Applying them again changes nothing. */
        size_t again_len = 0;
        char *again = apply(out, out_len, set, n, &again_len, &st);
        if (again && (again_len != out_len || memcmp(again, out, out_len) != 0))
            fuzz_fail("applying the settings twice changed the text again");
        free(again);
    }

    /* The list of a text's settings: each one accepted, and together they
     * leave a parsing text as it is... up to the lines they rewrite, which
     * then read the same again. */
    if (before == 1 && len < 4096) {
        size_t cap = 2 * len + 64, list_len = 0;
        for (size_t i = 0; i < len; i++)
            cap += text[i] == '\n' ? 64 : 0;
        char *list = malloc(cap + 1);
        fuzz_check(list != NULL);
        cg_status ls = cg_preset_settings(text, len, list, cap, &list_len);
        if (ls != CG_OK)
            fuzz_fail("cg_preset_settings returned %d with the documented room", (int)ls);
        list[list_len] = '\0';
        const char *own[64];
        size_t k = 0;
        for (char *p = list; *p && k < 64;) {
            char *nl = strchr(p, '\n');
            fuzz_check(nl != NULL);
            *nl = '\0';
            own[k++] = p;
            p = nl + 1;
        }
        size_t l1 = 0, l2 = 0;
        cg_status s1, s2;
        char *once = apply(text, len, own, k, &l1, &s1);
        if (!once && s1 != CG_ENOMEM)
            fuzz_fail("the text refused its own settings");
        char *twice = once ? apply(once, l1, own, k, &l2, &s2) : NULL;
        if (once && twice && (l1 != l2 || memcmp(once, twice, l1) != 0))
            fuzz_fail("the text's own settings changed it twice");
        free(once);
        free(twice);
        free(list);
    }

    /* Did you mean: among the settings as names, the head as the word. */
    const char *near = cg_nearest_name((const char *)data, head < 64 ? head : 64, set, n);
    int found = near == NULL;
    for (size_t i = 0; i < n && !found; i++)
        found = near == set[i];
    if (!found)
        fuzz_fail("a near name that was not offered");
    free(out);
    free(lines);
    return 0;
}
