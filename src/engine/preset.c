/* engine/preset.c - the preset language: one step per line, '#' comments, tokens
 * separated by blanks; a step name, an optional positional argument, then
 * key=value options and bare-word flags (docs/presets.md). Every error carries the
 * line and column of the token at fault. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/mem.h"
#include "engine/steps.h"

static int tok_eq(const cg__token *t, const char *s)
{
    return t->len == strlen(s) && memcmp(t->s, s, t->len) == 0;
}

static const cg__step_def *find_def(const cg__token *name)
{
    for (size_t i = 0; i < cg__step_count; i++)
        if (tok_eq(name, cg__steps[i]->name))
            return cg__steps[i];
    return NULL;
}

/* "size, fill, ..." for messages. */
static void list_names(char *buf, size_t cap, const char *const *names, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && names[i]; i++) {
        size_t len = strlen(names[i]);
        if (used + len + 3 >= cap)
            break;
        if (i) {
            memcpy(buf + used, ", ", 2);
            used += 2;
        }
        memcpy(buf + used, names[i], len);
        used += len;
        buf[used] = '\0';
    }
}

static void known_steps(char *buf, size_t cap)
{
    const char *names[32];
    size_t n = 0;
    for (size_t i = 0; i < cg__step_count && n < 32; i++)
        names[n++] = cg__steps[i]->name;
    list_names(buf, cap, names, n);
}

const char *cg__nearest_step(const char *word, size_t len)
{
    const char *names[32];
    size_t n = 0;
    for (size_t i = 0; i < cg__step_count && n < 32; i++)
        names[n++] = cg__steps[i]->name;
    return cg_nearest_name(word, len, names, n);
}

/* "; did you mean 'NAME'?" when there is a near name, else "". */
static const char *did_you_mean(char *buf, size_t cap, const char *near)
{
    if (!near)
        return "";
    snprintf(buf, cap, "; did you mean '%s'?", near);
    return buf;
}

static int find_word(const char *const *words, const cg__token *t, size_t len)
{
    for (int k = 0; k < CG__MAX_KEYS && words[k]; k++)
        if (strlen(words[k]) == len && memcmp(words[k], t->s, len) == 0)
            return k;
    return -1;
}

/* Matches the tokens of one line (tok[0] is the step name) against the
 * step's syntax. */
static cg_status match_args(const cg__step_def *def, const cg__token *tok, size_t n, int line,
                            cg__args *args, cg_diag *diag)
{
    memset(args, 0, sizeof *args);
    args->line = line;
    args->name = tok[0];
    char list[160];
    for (size_t i = 1; i < n; i++) {
        const cg__token *t = &tok[i];
        const char *eq = memchr(t->s, '=', t->len);
        if (eq) {
            size_t klen = (size_t)(eq - t->s);
            int k = find_word(def->keys, t, klen);
            if (k < 0) {
                size_t nkeys = 0;
                while (nkeys < CG__MAX_KEYS && def->keys[nkeys])
                    nkeys++;
                char hint[64];
                const char *mean =
                    did_you_mean(hint, sizeof hint, cg_nearest_name(t->s, klen, def->keys, nkeys));
                list_names(list, sizeof list, def->keys, CG__MAX_KEYS);
                if (list[0])
                    cg__diag(diag, line, t->column, "%s has no option '%.*s'%s (options: %s)",
                             def->name, (int)klen, t->s, mean, list);
                else
                    cg__diag(diag, line, t->column, "%s takes no options ('%.*s')", def->name,
                             (int)klen, t->s);
                return CG_EPARSE;
            }
            if (args->values[k].s) {
                cg__diag(diag, line, t->column, "%s: %s given twice", def->name, def->keys[k]);
                return CG_EPARSE;
            }
            args->values[k] = (cg__token){eq + 1, t->len - klen - 1, t->column + (int)klen + 1};
            continue;
        }
        int f = find_word(def->flags, t, t->len);
        if (f >= 0) {
            if (args->flags & (1u << f)) {
                cg__diag(diag, line, t->column, "%s: %s given twice", def->name, def->flags[f]);
                return CG_EPARSE;
            }
            args->flags |= 1u << f;
            continue;
        }
        if (def->positional && i == 1) {
            args->positional = *t;
            continue;
        }
        cg__diag(diag, line, t->column, "unexpected '%.*s' (usage: %s)", (int)t->len, t->s,
                 def->usage);
        return CG_EPARSE;
    }
    return CG_OK;
}

int cg__tokenize(const char *s, size_t len, cg__token *tok, int cap)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        if (s[i] == '#')
            break;
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#')
            i++;
        if (n == cap)
            return -1;
        tok[n++] = (cg__token){s + start, i - start, (int)start + 1};
    }
    return n;
}

/* The ordinal of a new step of kind def after steps[0..n-1]: one more than
 * that of the last step of its kind. Scanning back to it rather than
 * counting every earlier step keeps parsing linear: for each kind, the
 * scans span the gaps between its steps, which add up to n at most. */
static uint32_t next_ordinal(const cg__step *steps, size_t n, const cg__step_def *def)
{
    while (n > 0)
        if (steps[--n].def == def)
            return steps[n].ordinal + 1;
    return 0;
}

cg_status cg__parse_steps(const char *text, size_t len, cg__step **steps, size_t *nsteps,
                          size_t *cap, cg_diag *diag)
{
    size_t n0 = *nsteps;
    /* Lines are counted in a size_t (a text may hold more than INT_MAX of
     * them); diagnostics and steps get the count capped at INT_MAX. */
    size_t lines = 0;
    int line = 0;
    size_t pos = 0;
    cg_status st = CG_OK;
    while (pos < len && st == CG_OK) {
        /* A run of empty lines in one tight loop: no step, nothing to
         * tokenise. */
        while (pos < len && text[pos] == '\n') {
            lines++;
            pos++;
        }
        if (pos == len)
            break;
        lines++;
        line = lines > INT_MAX ? INT_MAX : (int)lines;
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        pos += l + (nl ? 1 : 0);
        if (l > 100000 || memchr(s, '\0', l)) {
            cg__diag(diag, line, 1, "line too long or not text");
            st = CG_EPARSE;
            break;
        }
        cg__token tok[2 * CG__MAX_KEYS + 2];
        int nt = cg__tokenize(s, l, tok, (int)(sizeof tok / sizeof tok[0]));
        if (nt == 0)
            continue;
        if (nt < 0) {
            cg__diag(diag, line, 1, "too many options on one line");
            st = CG_EPARSE;
            break;
        }
        const cg__step_def *def = find_def(&tok[0]);
        if (!def) {
            char list[256], hint[64];
            known_steps(list, sizeof list);
            cg__diag(diag, line, tok[0].column, "unknown step '%.*s'%s (known steps: %s)",
                     (int)tok[0].len, tok[0].s,
                     did_you_mean(hint, sizeof hint, cg__nearest_step(tok[0].s, tok[0].len)),
                     list);
            st = CG_EPARSE;
            break;
        }
        cg__args args;
        st = match_args(def, tok, (size_t)nt, line, &args, diag);
        if (st != CG_OK)
            break;
        if (*nsteps == *cap) {
            size_t ncap = *cap ? *cap * 2 : 16;
            cg__step *p = cg__realloc(*steps, ncap * sizeof *p);
            if (!p) {
                st = CG_ENOMEM;
                cg__diag(diag, line, 0, "out of memory");
                break;
            }
            *steps = p;
            *cap = ncap;
        }
        cg__step *step = &(*steps)[*nsteps];
        memset(step, 0, sizeof *step);
        step->def = def;
        step->line = line;
        step->column = tok[0].column;
        step->ordinal = next_ordinal(*steps, *nsteps, def);
        st = def->parse ? def->parse(step, &args, diag) : CG_OK;
        if (st == CG_OK)
            (*nsteps)++;
    }
    if (st != CG_OK)
        *nsteps = n0;
    return st;
}

cg_status cg__parse_int(const cg__token *tok, int line, const char *what, long lo, long hi,
                        long *out, cg_diag *diag)
{
    char buf[24];
    int ok = tok->len > 0 && tok->len < sizeof buf;
    long v = 0;
    if (ok) {
        memcpy(buf, tok->s, tok->len);
        buf[tok->len] = '\0';
        /* Digits with an optional '-' only: strtol alone would take "+5",
         * " 5" or "0x5". */
        const char *p = buf + (buf[0] == '-');
        ok = *p >= '0' && *p <= '9';
        for (; ok && *p; p++)
            ok = *p >= '0' && *p <= '9';
        if (ok) {
            errno = 0;
            v = strtol(buf, NULL, 10);
            ok = errno == 0 && v >= lo && v <= hi;
        }
    }
    if (!ok) {
        cg__diag(diag, line, tok->column, "%s must be an integer in %ld..%ld, not '%.*s'", what, lo,
                 hi, (int)(tok->len > 40 ? 40 : tok->len), tok->s);
        return CG_EPARSE;
    }
    *out = v;
    return CG_OK;
}

cg_status cg__parse_percent(const cg__token *tok, int line, const char *what, uint32_t *ppb,
                            cg_diag *diag)
{
    /* Exact decimal arithmetic: no floating point, so the threshold - and
     * the map - is the same on every platform. */
    uint64_t whole = 0, frac = 0;
    size_t i = 0, nfrac = 0;
    int ok = tok->len > 0;
    while (ok && i < tok->len && tok->s[i] >= '0' && tok->s[i] <= '9' && whole <= 100)
        whole = whole * 10 + (uint64_t)(tok->s[i++] - '0');
    ok = ok && i > 0;
    if (ok && i < tok->len && tok->s[i] == '.') {
        i++;
        while (i < tok->len && tok->s[i] >= '0' && tok->s[i] <= '9' && nfrac < 7) {
            frac = frac * 10 + (uint64_t)(tok->s[i++] - '0');
            nfrac++;
        }
        ok = nfrac > 0;
    }
    if (ok && i < tok->len && tok->s[i] == '%')
        i++;
    ok = ok && i == tok->len;
    for (; nfrac < 7; nfrac++)
        frac *= 10;
    uint64_t v = whole * 10000000 + frac;
    if (!ok || v > UINT64_C(1000000000)) {
        cg__diag(diag, line, tok->column,
                 "%s must be a percentage in 0..100 (up to 7 decimals), not '%.*s'", what,
                 (int)(tok->len > 40 ? 40 : tok->len), tok->s);
        return CG_EPARSE;
    }
    *ppb = (uint32_t)v;
    return CG_OK;
}

cg_status cg__parse_dims(const cg__token *tok, int line, const char *what, uint32_t *w,
                            uint32_t *h, cg_diag *diag)
{
    const char *x = memchr(tok->s, 'x', tok->len);
    if (!x) {
        cg__diag(diag, line, tok->column, "%s must be WIDTHxHEIGHT, not '%.*s'", what,
                 (int)tok->len, tok->s);
        return CG_EPARSE;
    }
    size_t wl = (size_t)(x - tok->s);
    cg__token wt = {tok->s, wl, tok->column};
    cg__token ht = {x + 1, tok->len - wl - 1, tok->column + (int)wl + 1};
    long lw, lh;
    if (cg__parse_int(&wt, line, "the width", 1, CG_MAX_DIM, &lw, diag) ||
        cg__parse_int(&ht, line, "the height", 1, CG_MAX_DIM, &lh, diag))
        return CG_EPARSE;
    *w = (uint32_t)lw;
    *h = (uint32_t)lh;
    return CG_OK;
}
