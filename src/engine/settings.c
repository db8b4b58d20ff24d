/* engine/settings.c - a preset's numbers changed without copying it
 * (docs/presets.md, "Settings"): `NAME=VALUE` where NAME addresses a value
 * of a step line - `fill` its positional argument, `poi.count` a key,
 * `maze.loops` a flag (yes|no), `rule.2.floor` the second rule line's key.
 * The settings rewrite the text, which is then parsed as usual, so the text
 * a map records (JSON, Tiled) reproduces it and --show-preset shows it. */
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "core/mem.h"
#include "engine/steps.h"

#define MAX_LINE_TOKENS (2 * CG__MAX_KEYS + 2)

/* A setting taken apart: step, ordinal (0: the step's only line), what to
 * set, and its value. */
typedef struct setting {
    const char *text; /* the whole "NAME=VALUE", for messages */
    const cg__step_def *def;
    unsigned long ordinal;
    int key;        /* index into def->keys, or -1 */
    int flag;       /* index into def->flags, or -1 (key and flag -1: the positional) */
    cg__token word; /* the key or flag name as written in the setting */
    cg__token value;
    int used;
} setting;

static const cg__step_def *def_named(const char *s, size_t len)
{
    for (size_t i = 0; i < cg__step_count; i++)
        if (strlen(cg__steps[i]->name) == len && memcmp(cg__steps[i]->name, s, len) == 0)
            return cg__steps[i];
    return NULL;
}

static int word_index(const char *const *words, const char *s, size_t len)
{
    for (int k = 0; k < CG__MAX_KEYS && words[k]; k++)
        if (strlen(words[k]) == len && memcmp(words[k], s, len) == 0)
            return k;
    return -1;
}

static cg_status bad_setting(const char *text, cg_diag *diag, const char *why)
{
    cg__diag(diag, 0, 0, "setting '%s': %s", text, why);
    return CG_EINVAL;
}

/* Takes "STEP[.N][.WORD]=VALUE" apart. */
static cg_status parse_setting(const char *text, setting *out, cg_diag *diag)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return bad_setting(text, diag, "a setting is NAME=VALUE, e.g. poi.count=4");
    const char *value = eq + 1;
    size_t vlen = strlen(value);
    if (vlen == 0 || strcspn(value, " \t\r\n#") != vlen)
        return bad_setting(text, diag, "the value must be one word, without blanks or '#'");
    *out = (setting){.text = text, .key = -1, .flag = -1};
    out->value = (cg__token){value, vlen, 0};
    const char *dot = memchr(text, '.', (size_t)(eq - text));
    size_t nlen = (size_t)((dot ? dot : eq) - text);
    out->def = def_named(text, nlen);
    if (!out->def) {
        const char *near = cg__nearest_step(text, nlen);
        cg__diag(diag, 0, 0, "setting '%s': no step is called '%.*s'%s%s%s", text, (int)nlen, text,
                 near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return CG_EINVAL;
    }
    if (out->def->setting)
        return bad_setting(text, diag, "use -W/-H or --size for the size");
    const char *p = dot ? dot + 1 : eq;
    /* An ordinal: digits up to the next '.' or the '='. */
    const char *end = p;
    while (end < eq && *end >= '0' && *end <= '9')
        end++;
    if (end > p && (end == eq || *end == '.')) {
        if (end - p > 6 || *p == '0')
            return bad_setting(text, diag, "the line number among the step's lines is 1, 2, ...");
        for (const char *d = p; d < end; d++)
            out->ordinal = out->ordinal * 10 + (unsigned long)(*d - '0');
        p = end < eq ? end + 1 : eq;
    }
    if (p < eq) {
        size_t wlen = (size_t)(eq - p);
        out->word = (cg__token){p, wlen, 0};
        out->key = word_index(out->def->keys, p, wlen);
        out->flag = word_index(out->def->flags, p, wlen);
        /* A word that is both (maze's `loops` and `loops=P%`): yes|no is the flag. */
        if (out->key >= 0 && out->flag >= 0) {
            if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0)
                out->key = -1;
            else
                out->flag = -1;
        }
        if (out->key < 0 && out->flag < 0) {
            const char *words[2 * CG__MAX_KEYS];
            size_t nw = 0;
            for (int k = 0; k < CG__MAX_KEYS; k++) {
                if (out->def->keys[k])
                    words[nw++] = out->def->keys[k];
                if (out->def->flags[k])
                    words[nw++] = out->def->flags[k];
            }
            const char *near = cg_nearest_name(p, wlen, words, nw);
            cg__diag(diag, 0, 0, "setting '%s': %s has no option '%.*s'%s%s%s (usage: %s)", text,
                     out->def->name, (int)wlen, p, near ? "; did you mean '" : "", near ? near : "",
                     near ? "'?" : "", out->def->usage);
            return CG_EINVAL;
        }
        if (out->flag >= 0 && strcmp(value, "yes") != 0 && strcmp(value, "no") != 0) {
            cg__diag(diag, 0, 0, "setting '%s': %s is a flag: yes or no", text,
                     out->def->flags[out->flag]);
            return CG_EINVAL;
        }
    } else if (!out->def->positional) {
        cg__diag(diag, 0, 0, "setting '%s': %s takes no value of its own (usage: %s)", text,
                 out->def->name, out->def->usage);
        return CG_EINVAL;
    }
    return CG_OK;
}

/* An output buffer that counts what does not fit. */
typedef struct out_buf {
    char *p;
    size_t cap, len;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->len < o->cap)
        memcpy(o->p + o->len, s, o->len + n <= o->cap ? n : o->cap - o->len);
    o->len += n;
}

/* Is token t the setting's word, as key=... or as a bare flag? (A word may
 * be both: the setting replaces either form.) */
static int token_is(const cg__token *t, const setting *s)
{
    return t->len >= s->word.len && memcmp(t->s, s->word.s, s->word.len) == 0 &&
           (t->len == s->word.len || t->s[s->word.len] == '=');
}

/* Applies the settings that address this line to its tokens (tok[0] the
 * step name; room for MAX_LINE_TOKENS); returns the new count, or -1 when
 * there is no room. The value tokens point into the settings' own text. */
static int apply_to_line(cg__token *tok, int n, setting *set, size_t nset, const cg__step_def *def,
                         unsigned long ordinal)
{
    for (size_t i = 0; i < nset; i++) {
        setting *s = &set[i];
        if (s->def != def || (s->ordinal && s->ordinal != ordinal))
            continue;
        s->used = 1;
        if (s->key < 0 && s->flag < 0) { /* the positional: token 1 unless it is key=/flag */
            int has = n > 1 && !memchr(tok[1].s, '=', tok[1].len) &&
                      word_index(def->flags, tok[1].s, tok[1].len) < 0;
            if (!has) {
                if (n == MAX_LINE_TOKENS)
                    return -1;
                memmove(&tok[2], &tok[1], (size_t)(n - 1) * sizeof *tok);
                n++;
            }
            tok[1] = s->value;
            continue;
        }
        int at = -1;
        for (int k = 1; k < n; k++)
            if (token_is(&tok[k], s))
                at = k;
        int remove = s->flag >= 0 && s->value.s[0] == 'n';
        if (remove) {
            if (at >= 0) {
                memmove(&tok[at], &tok[at + 1], (size_t)(n - at - 1) * sizeof *tok);
                n--;
            }
            continue;
        }
        /* key=value is the tail of the setting's own text; a flag is its word. */
        cg__token t =
            s->flag >= 0 ? s->word : (cg__token){s->word.s, s->word.len + 1 + s->value.len, 0};
        if (at < 0) {
            if (n == MAX_LINE_TOKENS)
                return -1;
            at = n++;
        }
        tok[at] = t;
    }
    return n;
}

/* Checks a rewritten line by parsing it alone. */
static cg_status check_line(const char *line, size_t len, const setting *set, size_t nset,
                            const cg__step_def *def, unsigned long ordinal, cg_diag *diag)
{
    cg__step *steps = NULL;
    size_t nsteps = 0, cap = 0;
    cg_diag d = {0};
    cg_status st = cg__parse_steps(line, len, &steps, &nsteps, &cap, &d);
    cg__free(steps);
    if (st == CG_OK || st == CG_ENOMEM) {
        if (st == CG_ENOMEM)
            cg__diag(diag, 0, 0, "out of memory");
        return st;
    }
    const char *which = "";
    for (size_t i = 0; i < nset && !which[0]; i++)
        if (set[i].def == def && (!set[i].ordinal || set[i].ordinal == ordinal))
            which = set[i].text;
    cg__diag(diag, 0, 0, "setting '%s': %s", which, d.message);
    return CG_EINVAL;
}

/* One line of a preset text: where it is, whether a line break ends it,
 * its tokens and the step it names (NULL: blank, a comment or no step). */
typedef struct text_line {
    const char *s;
    size_t len;
    int newline;
    cg__token tok[MAX_LINE_TOKENS];
    int ntok;
    const cg__step_def *def;
    size_t index; /* of def in cg__steps */
} text_line;

/* Reads the line at *pos of text into line and moves *pos past it. */
static void read_line(const char *text, size_t len, size_t *pos, text_line *line)
{
    const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
    line->s = s;
    line->len = nl ? (size_t)(nl - s) : len - *pos;
    line->newline = nl != NULL;
    *pos += line->len + (nl != NULL);
    line->ntok = cg__tokenize(s, line->len, line->tok, MAX_LINE_TOKENS);
    line->def = line->ntok > 0 ? def_named(line->tok[0].s, line->tok[0].len) : NULL;
    line->index = 0;
    while (line->def && cg__steps[line->index] != line->def)
        line->index++;
}

/* Counts each step's lines in text: counts[k] for cg__steps[k]. */
static void count_lines(const char *text, size_t len, unsigned long *counts, size_t ncounts)
{
    text_line line;
    for (size_t pos = 0; pos < len;) {
        read_line(text, len, &pos, &line);
        if (line.def && line.index < ncounts)
            counts[line.index]++;
    }
}

cg_status cg_preset_apply(const char *text, size_t len, const char *const *settings,
                          size_t nsettings, char *out, size_t cap, size_t *out_len, cg_diag *diag)
{
    if ((!text && len) || (!settings && nsettings) || (!out && cap) || !out_len) {
        cg__diag(diag, 0, 0, "cg_preset_apply: missing argument");
        return CG_EINVAL;
    }
    setting *set = nsettings ? cg__calloc(nsettings, sizeof *set) : NULL;
    if (nsettings && !set) {
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    cg_status st = CG_OK;
    for (size_t i = 0; i < nsettings && st == CG_OK; i++)
        st = settings[i] ? parse_setting(settings[i], &set[i], diag)
                         : bad_setting("(null)", diag, "a setting is NAME=VALUE");
    /* How many lines each step has, so an unnumbered setting of a step
     * with several lines is refused rather than guessed. */
    unsigned long counts[64] = {0};
    count_lines(text, len, counts, cg__step_count < 64 ? cg__step_count : 64);
    for (size_t i = 0; i < nsettings && st == CG_OK; i++) {
        size_t k = 0;
        while (cg__steps[k] != set[i].def)
            k++;
        if (counts[k] == 0) {
            cg__diag(diag, 0, 0, "setting '%s': the preset has no %s line (add one with a step)",
                     set[i].text, set[i].def->name);
            st = CG_EINVAL;
        } else if (set[i].ordinal > counts[k]) {
            cg__diag(diag, 0, 0, "setting '%s': the preset has %lu %s line%s", set[i].text,
                     counts[k], set[i].def->name, counts[k] == 1 ? "" : "s");
            st = CG_EINVAL;
        } else if (!set[i].ordinal && counts[k] > 1) {
            cg__diag(diag, 0, 0,
                     "setting '%s': the preset has %lu %s lines; say which, as %s.1 to %s.%lu",
                     set[i].text, counts[k], set[i].def->name, set[i].def->name, set[i].def->name,
                     counts[k]);
            st = CG_EINVAL;
        }
    }

    out_buf o = {out, cap, 0};
    unsigned long seen[64] = {0};
    text_line line;
    for (size_t pos = 0; st == CG_OK && pos < len;) {
        read_line(text, len, &pos, &line);
        const cg__step_def *def = line.def;
        size_t k = line.index;
        int touched = 0;
        for (size_t i = 0; def && i < nsettings; i++)
            touched |= set[i].def == def && (!set[i].ordinal || set[i].ordinal == seen[k] + 1);
        if (!touched) { /* kept as it is, byte for byte */
            put(&o, line.s, line.len + (size_t)line.newline);
            if (def)
                seen[k]++;
            continue;
        }
        unsigned long ordinal = ++seen[k];
        int n = apply_to_line(line.tok, line.ntok, set, nsettings, def, ordinal);
        if (n < 0) {
            cg__diag(diag, 0, 0, "setting: too many options on the %s line", def->name);
            st = CG_EINVAL;
            break;
        }
        size_t start = o.len;
        for (int t = 0; t < n; t++) {
            if (t)
                put(&o, " ", 1);
            put(&o, line.tok[t].s, line.tok[t].len);
        }
        const char *hash = memchr(line.s, '#', line.len);
        if (hash) {
            put(&o, "  ", 2);
            put(&o, hash, line.len - (size_t)(hash - line.s));
        }
        if (o.len <= o.cap)
            st = check_line(o.p + start, o.len - start, set, nsettings, def, ordinal, diag);
        if (line.newline)
            put(&o, "\n", 1);
    }
    cg__free(set);
    if (st != CG_OK)
        return st;
    *out_len = o.len;
    if (o.len > cap) {
        cg__diag(diag, 0, 0, "the text with its settings needs %zu bytes", o.len);
        return CG_EOVERFLOW;
    }
    return CG_OK;
}

cg_status cg_preset_settings(const char *text, size_t len, char *out, size_t cap, size_t *out_len)
{
    if ((!text && len) || (!out && cap) || !out_len)
        return CG_EINVAL;
    unsigned long counts[64] = {0}, seen[64] = {0};
    count_lines(text, len, counts, cg__step_count < 64 ? cg__step_count : 64);
    out_buf o = {out, cap, 0};
    text_line line;
    for (size_t pos = 0; pos < len;) {
        read_line(text, len, &pos, &line);
        const cg__step_def *def = line.def;
        const cg__token *tok = line.tok;
        size_t k = line.index;
        int nt = line.ntok;
        if (!def || def->setting)
            continue;
        char prefix[48];
        int pl = counts[k] > 1 ? snprintf(prefix, sizeof prefix, "%s.%lu", def->name, ++seen[k])
                               : snprintf(prefix, sizeof prefix, "%s", def->name);
        for (int t = 1; t < nt; t++) {
            const char *eq = memchr(tok[t].s, '=', tok[t].len);
            int flag = !eq && word_index(def->flags, tok[t].s, tok[t].len) >= 0;
            put(&o, prefix, (size_t)pl);
            if (eq || flag) {
                put(&o, ".", 1);
                put(&o, tok[t].s, tok[t].len);
                if (flag)
                    put(&o, "=yes", 4);
            } else {
                put(&o, "=", 1);
                put(&o, tok[t].s, tok[t].len);
            }
            put(&o, "\n", 1);
        }
    }
    *out_len = o.len;
    return o.len > cap ? CG_EOVERFLOW : CG_OK;
}
