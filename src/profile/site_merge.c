/* Merging the ranks' instance records, reading addr2line (site_merge.h). */
#include "profile/site_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_site(const mf_site_rec_t *a, const mf_site_rec_t *b)
{
    return a->offset == b->offset && a->coll == b->coll && !strcmp(a->module, b->module);
}

static void mark_mixed(char *mine, size_t len, const char *other)
{
    if (strcmp(mine, other))
        snprintf(mine, len, "mixed");
}

static void add_rec(mf_site_merged_t *m, const mf_site_rec_t *r)
{
    mf_site_rec_t *s = &m->sum;
    if (m->ranks++ == 0) {
        *s = *r;
    } else {
        s->calls += r->calls, s->offloaded += r->offloaded, s->bytes += r->bytes;
        s->baseline_calls += r->baseline_calls;
        s->host_us += r->host_us, s->offload_us += r->offload_us;
        s->baseline_us += r->baseline_us;
        if (s->comm_size != r->comm_size)
            s->comm_size = -1;
        mark_mixed(s->dtype, sizeof s->dtype, r->dtype);
        mark_mixed(s->op, sizeof s->op, r->op);
    }
    if (r->calls > m->calls_max)
        m->calls_max = r->calls;
    if (r->offloaded > m->offloaded_max)
        m->offloaded_max = r->offloaded;
    if (r->baseline_calls > m->baseline_calls_max)
        m->baseline_calls_max = r->baseline_calls;
    if (r->host_us > m->host_us_max)
        m->host_us_max = r->host_us;
}

/* A record as another rank sent it: its strings end within their fields. */
static void terminate_strings(mf_site_rec_t *r)
{
    r->module[sizeof r->module - 1] = '\0';
    r->func[sizeof r->func - 1] = '\0';
    r->dtype[sizeof r->dtype - 1] = '\0';
    r->op[sizeof r->op - 1] = '\0';
}

/* Merge n records into *out (array of *nm); 0 or -1 (out of memory). */
int mf_site_merge(const mf_site_rec_t *all, int n, mf_site_merged_t **out, int *nm)
{
    mf_site_merged_t *m = calloc((size_t)(n ? n : 1), sizeof *m);
    int k = 0;
    if (!m)
        return -1;
    for (int i = 0; i < n; i++) {
        mf_site_rec_t r = all[i];
        terminate_strings(&r);
        int j = 0;
        while (j < k && !same_site(&m[j].sum, &r))
            j++;
        if (j == k)
            k++;
        add_rec(&m[j], &r);
    }
    *out = m, *nm = k;
    return 0;
}

/* Replace *dst by a copy of n characters of src; 0 or -1. */
static int set_str(char **dst, const char *src, size_t n)
{
    char *copy = strndup(src, n);
    if (!copy)
        return -1;
    free(*dst);
    *dst = copy;
    return 0;
}

static int parse_fileline(mf_site_merged_t *m, const char *text)
{
    const char *colon = strrchr(text, ':');
    if (!colon || text[0] == '?' || colon == text)
        return 0;
    long line = strtol(colon + 1, NULL, 10);
    if (line <= 0)
        return 0;
    if (set_str(&m->file, text, (size_t)(colon - text)))
        return -1;
    m->line = line;
    return 0;
}

int mf_site_take_answer(mf_site_merged_t *m, int depth, const char *func, const char *fileline)
{
    int known = func[0] && func[0] != '?';
    if (depth > 0)
        return known ? set_str(&m->inlined_in, func, strlen(func)) : 0;
    if (known && set_str(&m->name, func, strlen(func)))
        return -1;
    return parse_fileline(m, fileline);
}

const char *mf_site_name(const mf_site_merged_t *m) { return m->name ? m->name : m->sum.func; }

void mf_site_merged_free(mf_site_merged_t *m, int nm)
{
    for (int i = 0; m && i < nm; i++) {
        free(m[i].name);
        free(m[i].file);
        free(m[i].inlined_in);
    }
    free(m);
}
