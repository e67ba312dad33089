/*
 * Table-driven parameter files (conf.h): parsing, range checks, loading of
 * built-in sets and user files, printing.  Used by params.c (the switch
 * model's sets) and host.c (the baseline hosts' sets).
 */
#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest line of a parameter file, and largest file accepted. */
#define MF_LINE_MAX 1024
#define MF_FILE_MAX (1u << 20)
/* Most keys a schema may have. */
#define MF_CONF_MAX_KEYS 64

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

int mf_conf_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static const mf_pdef_t *find_key(const mf_conf_schema_t *s, const char *key)
{
    for (size_t i = 0; i < s->ndefs; i++)
        if (strcmp(s->defs[i].key, key) == 0)
            return &s->defs[i];
    return NULL;
}

static void *field(void *p, const mf_pdef_t *d) { return (char *)p + d->off; }

static const void *cfield(const void *p, const mf_pdef_t *d)
{
    return (const char *)p + d->off;
}

/* Decimal unsigned integer, whole string, no sign. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Finite floating-point number, whole string. */
static int parse_double(const char *s, double *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* Check a numeric value against its row: range and shape flags.  text is
 * the value as written, for the message. */
static int check_range(const mf_pdef_t *d, double v, const char *text, const char *where,
                       char *err, size_t errlen)
{
    int low = (d->flags & MF_F_MIN_OPEN) ? !(v > d->min) : v < d->min;
    if (low || v > d->max)
        return mf_conf_fail(err, errlen, "%s%s = %s out of range %s%g, %g] (%s)", where, d->key, text,
                    (d->flags & MF_F_MIN_OPEN) ? "(" : "[", d->min, d->max, d->help);
    if ((d->flags & MF_F_MUL64) && fmod(v, 64) != 0)
        return mf_conf_fail(err, errlen, "%s%s = %s is not a multiple of 64 (%s)", where, d->key, text,
                    d->help);
    if ((d->flags & MF_F_POW2) && !is_pow2((uint64_t)v))
        return mf_conf_fail(err, errlen, "%s%s = %s is not a power of two (%s)", where, d->key, text,
                    d->help);
    return 0;
}

static int set_string(void *p, const mf_pdef_t *d, const char *value, const char *where,
                      char *err, size_t errlen)
{
    size_t len = strlen(value);
    if (len == 0 || len >= MF_CONF_NAME_LEN)
        return mf_conf_fail(err, errlen, "%sbad value '%s' for key '%s' (1..%zu characters)", where, value,
                    d->key, MF_CONF_NAME_LEN - 1);
    /* what a parameter file cannot carry (an override could): printed, the
     * set would not load back as it was */
    if (strpbrk(value, "#\n"))
        return mf_conf_fail(err, errlen, "%sbad value '%s' for key '%s' (no '#' or line break)",
                            where, value, d->key);
    /* zero-padded: nothing of a longer earlier value stays behind the NUL */
    memset(field(p, d), 0, MF_CONF_NAME_LEN);
    memcpy(field(p, d), value, len);
    return 0;
}

/* Parse, check and store one value.  where is "" or "file:line: ". */
static int set_field(void *p, const mf_pdef_t *d, const char *value, const char *where,
                     char *err, size_t errlen)
{
    uint64_t u;
    double v;
    switch (d->type) {
    case MF_T_STR:
        return set_string(p, d, value, where, err, errlen);
    case MF_T_U64:
        if (parse_u64(value, &u))
            return mf_conf_fail(err, errlen, "%sbad value '%s' for key '%s' (expected an unsigned integer)",
                        where, value, d->key);
        *(uint64_t *)field(p, d) = u;
        return 0;
    case MF_T_UINT:
        if (parse_u64(value, &u))
            return mf_conf_fail(err, errlen, "%sbad value '%s' for key '%s' (expected an unsigned integer)",
                        where, value, d->key);
        if (check_range(d, u > UINT_MAX ? HUGE_VAL : (double)u, value, where, err, errlen))
            return -1;
        *(unsigned *)field(p, d) = (unsigned)u;
        return 0;
    case MF_T_DBL:
        if (parse_double(value, &v))
            return mf_conf_fail(err, errlen, "%sbad value '%s' for key '%s' (expected a number)", where,
                        value, d->key);
        if (check_range(d, v, value, where, err, errlen))
            return -1;
        *(double *)field(p, d) = v;
        return 0;
    }
    return mf_conf_fail(err, errlen, "%sinternal: bad type for key '%s'", where, d->key);
}

/* ------------------------------------------------------------------------ */
/* Text parser                                                               */

/* Split "key = value  # comment".  Returns 0 for a blank/comment line, 1 for
 * a pair (key, value trimmed, in place), -1 for a line without '='. */
static int split_line(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *s = trim(line);
    if (!*s)
        return 0;
    char *eq = strchr(s, '=');
    if (!eq)
        return -1;
    *eq = '\0';
    *key = trim(s);
    *value = trim(eq + 1);
    return 1;
}

/* Copy the next line of text into buf; returns the start of the following
 * line, or NULL at the end.  *too_long is set if the line did not fit. */
static const char *next_line(const char *text, char *buf, size_t buflen, int *too_long)
{
    if (!*text)
        return NULL;
    size_t n = strcspn(text, "\n");
    *too_long = n >= buflen;
    size_t keep = *too_long ? buflen - 1 : n;
    memcpy(buf, text, keep);
    buf[keep] = '\0';
    return text[n] ? text + n + 1 : text + n;
}

static int apply_line(const mf_conf_schema_t *s, void *p, char *line, const char *src,
                      unsigned lineno, unsigned *seen, char *err, size_t errlen)
{
    char *key, *value;
    int kind = split_line(line, &key, &value);
    if (kind == 0)
        return 0;
    if (kind < 0)
        return mf_conf_fail(err, errlen, "%s:%u: expected 'key = value'", src, lineno);
    const mf_pdef_t *d = find_key(s, key);
    if (!d)
        return mf_conf_fail(err, errlen, "%s:%u: unknown key '%s'", src, lineno, key);
    size_t i = (size_t)(d - s->defs);
    if (seen[i])
        return mf_conf_fail(err, errlen, "%s:%u: duplicate key '%s' (first set on line %u)", src, lineno,
                    key, seen[i]);
    seen[i] = lineno;
    char where[MF_LINE_MAX];
    snprintf(where, sizeof where, "%s:%u: ", src, lineno);
    return set_field(p, d, value, where, err, errlen);
}

/* Apply every line of text to p.  With require_all, every key must be set
 * (built-in sets are complete). */
static int apply_text(const mf_conf_schema_t *s, void *p, const char *text, const char *src, int require_all,
                      char *err, size_t errlen)
{
    unsigned seen[MF_CONF_MAX_KEYS] = { 0 };
    char line[MF_LINE_MAX];
    unsigned lineno = 0;
    int too_long;
    while ((text = next_line(text, line, sizeof line, &too_long))) {
        lineno++;
        if (too_long)
            return mf_conf_fail(err, errlen, "%s:%u: line longer than %d characters", src, lineno,
                        MF_LINE_MAX - 1);
        if (apply_line(s, p, line, src, lineno, seen, err, errlen))
            return -1;
    }
    for (size_t i = 0; require_all && i < s->ndefs; i++)
        if (!seen[i])
            return mf_conf_fail(err, errlen, "%s: missing key '%s'", src, s->defs[i].key);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

static const mf_builtin_t *find_builtin(const mf_conf_schema_t *s, const char *name)
{
    for (size_t i = 0; i < s->nbuiltins; i++)
        if (strcasecmp(s->builtins[i].name, name) == 0)
            return &s->builtins[i];
    return NULL;
}

static int load_builtin(const mf_conf_schema_t *s, const mf_builtin_t *b, void *p, char *err,
                        size_t errlen)
{
    memset(p, 0, s->obj_size);
    return apply_text(s, p, b->text, b->name, 1, err, errlen);
}

/* Whole file as a NUL-terminated string (caller frees), or NULL with err. */
static char *read_text_file(FILE *f, const char *path, char *err, size_t errlen)
{
    char *buf = malloc(MF_FILE_MAX + 1);
    if (!buf) {
        mf_conf_fail(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(buf, 1, MF_FILE_MAX + 1, f);
    if (ferror(f) || n > MF_FILE_MAX || memchr(buf, '\0', n)) {
        mf_conf_fail(err, errlen, "%s: %s", path,
             ferror(f) ? "cannot read file" : n > MF_FILE_MAX ? "file too large" : "not a text file");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* The base set, named after the file, then the file's keys. */
static int load_file(const mf_conf_schema_t *s, FILE *f, const char *path, void *p, char *err,
                     size_t errlen)
{
    char *text = read_text_file(f, path, err, errlen);
    if (!text)
        return -1;
    int rc = load_builtin(s, &s->builtins[0], p, err, errlen);
    if (rc == 0) {
        memset(p, 0, MF_CONF_NAME_LEN); /* zero-padded, as set_string leaves it */
        snprintf((char *)p, MF_CONF_NAME_LEN, "%s", base_name(path));
        rc = apply_text(s, p, text, path, 0, err, errlen);
    }
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                  */

/* Shortest of %.15g / %.17g that reads back as the same double. */
static void format_double(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

static void format_value(const void *p, const mf_pdef_t *d, char *buf, size_t len)
{
    const void *f = cfield(p, d);
    switch (d->type) {
    case MF_T_STR: snprintf(buf, len, "%s", (const char *)f); break;
    case MF_T_UINT: snprintf(buf, len, "%u", *(const unsigned *)f); break;
    case MF_T_U64: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)f); break;
    case MF_T_DBL: format_double(buf, len, *(const double *)f); break;
    }
}

/* ------------------------------------------------------------------------ */
/* Whole-set checks                                                          */

/* Every field against its table row (for sets built or changed in code). */
static int check_rows(const mf_conf_schema_t *s, const void *p, char *err, size_t errlen)
{
    const char *name = p;
    if (!memchr(name, '\0', MF_CONF_NAME_LEN) || !name[0])
        return mf_conf_fail(err, errlen, "name is empty or not NUL-terminated");
    char text[64];
    for (size_t i = 0; i < s->ndefs; i++) {
        const mf_pdef_t *d = &s->defs[i];
        if (d->type != MF_T_UINT && d->type != MF_T_DBL)
            continue;
        double v = d->type == MF_T_UINT ? *(const unsigned *)cfield(p, d)
                                        : *(const double *)cfield(p, d);
        if (!isfinite(v))
            return mf_conf_fail(err, errlen, "%s is not a finite number", d->key);
        format_value(p, d, text, sizeof text);
        if (check_range(d, v, text, "", err, errlen))
            return -1;
    }
    return 0;
}


/* ------------------------------------------------------------------------ */
/* Public API                                                                */

static void builtin_list(const mf_conf_schema_t *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nbuiltins && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 s->builtins[i].name);
}

int mf_conf_load(const mf_conf_schema_t *s, const char *name, void *obj, char *err,
                 size_t errlen)
{
    if (!name || !obj)
        return mf_conf_fail(err, errlen, "no %s name", s->kind);
    if (s->ndefs > MF_CONF_MAX_KEYS)
        return mf_conf_fail(err, errlen, "internal: too many keys in a %s", s->kind);
    void *tmp = malloc(s->obj_size);
    if (!tmp)
        return mf_conf_fail(err, errlen, "out of memory");
    int rc;
    const mf_builtin_t *b = find_builtin(s, name);
    if (b) {
        rc = load_builtin(s, b, tmp, err, errlen);
    } else {
        FILE *f = fopen(name, "r");
        if (f) {
            rc = load_file(s, f, name, tmp, err, errlen);
            fclose(f);
        } else {
            char list[256];
            builtin_list(s, list, sizeof list);
            rc = mf_conf_fail(err, errlen, "unknown %s '%s' (built-in: %s; or a file path)",
                              s->kind, name, list);
        }
    }
    char why[MF_LINE_MAX];
    if (rc == 0 && mf_conf_check(s, tmp, why, sizeof why))
        rc = mf_conf_fail(err, errlen, "%s: %s", b ? b->name : name, why);
    if (rc == 0)
        memcpy(obj, tmp, s->obj_size);
    free(tmp);
    return rc;
}

int mf_conf_set(const mf_conf_schema_t *s, void *obj, const char *key, const char *value,
                char *err, size_t errlen)
{
    char kbuf[MF_LINE_MAX], vbuf[MF_LINE_MAX];
    if (!obj || !key)
        return mf_conf_fail(err, errlen, "no key to set");
    if (!value) { /* key holds "key=value" */
        const char *eq = strchr(key, '=');
        if (!eq)
            return mf_conf_fail(err, errlen, "override '%s' is not key=value", key);
        snprintf(vbuf, sizeof vbuf, "%s", eq + 1);
        snprintf(kbuf, sizeof kbuf, "%.*s", (int)(eq - key), key);
    } else {
        snprintf(kbuf, sizeof kbuf, "%s", key);
        snprintf(vbuf, sizeof vbuf, "%s", value);
    }
    const char *k = trim(kbuf), *v = trim(vbuf);
    const mf_pdef_t *d = find_key(s, k);
    if (!d)
        return mf_conf_fail(err, errlen, "unknown key '%s'", k);
    return set_field(obj, d, v, "", err, errlen);
}

int mf_conf_check(const mf_conf_schema_t *s, const void *obj, char *err, size_t errlen)
{
    if (!obj)
        return mf_conf_fail(err, errlen, "no %s", s->kind);
    if (check_rows(s, obj, err, errlen))
        return -1;
    return s->check_relations ? s->check_relations(obj, err, errlen) : 0;
}

void mf_conf_print(const mf_conf_schema_t *s, const void *obj, FILE *out)
{
    char val[64];
    for (size_t i = 0; i < s->ndefs; i++) {
        format_value(obj, &s->defs[i], val, sizeof val);
        fprintf(out, "%-24s = %-12s # %s\n", s->defs[i].key, val, s->defs[i].help);
    }
}
