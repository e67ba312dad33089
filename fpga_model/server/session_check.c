/* Comparing the members' calls of a record, and saying how they differ;
 * see session_int.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/session_int.h"

/* ---- comparing the members' calls --------------------------------------- */

typedef enum {
    F_SIZE, F_OPCODE, F_DTYPE, F_OP, F_ROOT, F_COUNT, F_ALG, F_COUNTS, F_NFIELDS
} field_t;

static const char *const field_what[F_NFIELDS] = {
    "the communicator size", "the collective", "the datatype", "the operation",
    "the root", "count", "the algorithm", "recvcounts",
};

static int same_counts(const member_t *a, const member_t *b)
{
    if (a->c.ncounts != b->c.ncounts)
        return 0;
    /* alltoallv: the members' own send / receive sizes differ; ranks agree */
    size_t n = mf_opcode_shared_counts(a->c.hdr.opcode, a->c.comm_size);
    n = n < a->c.ncounts ? n : a->c.ncounts;
    return !n || !memcmp(a->counts, b->counts, n * sizeof *a->counts);
}

/* Keys of every member for field f into keys[]: equal keys = equal values.
 * Returns 1 if they differ. */
static int field_keys(const record_t *rec, field_t f, uint64_t *keys)
{
    int differ = 0;
    for (int i = 0; i < rec->size; i++) {
        const member_t *m = &rec->m[i];
        switch (f) {
        case F_SIZE: keys[i] = m->c.comm_size; break;
        case F_OPCODE: keys[i] = m->c.hdr.opcode; break;
        case F_DTYPE: keys[i] = m->c.hdr.dtype; break;
        case F_OP: keys[i] = m->c.hdr.op; break;
        case F_ROOT: keys[i] = m->c.hdr.root; break;
        case F_COUNT: keys[i] = m->c.hdr.size; break;
        case F_ALG: keys[i] = m->c.hdr.alg; break;
        default: /* the first member with the same array; usually member 0 */
            keys[i] = (uint64_t)i;
            for (int j = 0; j < i; j++)
                if ((j == 0 || keys[j] == (uint64_t)j) && same_counts(&rec->m[j], m)) {
                    keys[i] = (uint64_t)j;
                    break;
                }
        }
        differ |= keys[i] != keys[0];
    }
    return differ;
}

static void put_value(char *buf, size_t len, const member_t *m, field_t f)
{
    const mf_proc_hdr_t *h = &m->c.hdr;
    switch (f) {
    case F_SIZE: ses_textf(buf, len, "size %u", m->c.comm_size); return;
    case F_OPCODE: ses_textf(buf, len, "%s", ses_mpi_name(h->opcode)); return;
    case F_DTYPE: ses_textf(buf, len, "datatype %s", mf_dtype_name(h->dtype)); return;
    case F_OP: ses_textf(buf, len, "op %s", mf_op_name(h->op)); return;
    case F_ROOT: ses_textf(buf, len, "root %u", h->root); return;
    case F_COUNT: ses_textf(buf, len, "%u bytes", h->size); return;
    case F_ALG: ses_textf(buf, len, "algorithm %s", ses_alg_name(h->alg)); return;
    default: break;
    }
    if (!m->c.ncounts) {
        ses_textf(buf, len, "no recvcounts");
        return;
    }
    size_t n = (size_t)ses_textf(buf, len, "recvcounts");
    for (uint32_t i = 0; i < m->c.ncounts && n < len; i++)
        n += (size_t)ses_textf(buf + n, len - n, i ? ",%u" : " %u", m->counts[i]);
}

/* Append to a bounded text; once full, later appends are dropped. */
typedef struct {
    char *p;
    size_t len, n;
} text_t;

static void tput(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text_t *t, const char *fmt, ...)
{
    if (t->n >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->p + t->n, t->len - t->n, fmt, ap);
    va_end(ap);
    t->n = k < 0 ? t->len : t->n + (size_t)k;
}

static void put_run(text_t *t, int start, int end, int *any)
{
    tput(t, "%s%d", *any ? "," : "", start);
    if (end > start)
        tput(t, "%s%d", end == start + 1 ? "," : "-", end);
    *any = 1;
}

/* The comm ranks (global: their global ranks) of the members whose key is
 * `key`, runs shortened: "0-3,5". */
static void put_ranks(text_t *t, const record_t *rec, const uint64_t *keys, uint64_t key,
                      int global)
{
    int start = -1, prev = -1, any = 0;
    for (int i = 0; i < rec->size; i++) {
        if (keys[i] != key)
            continue;
        int v = global ? rec->m[i].grank : i;
        if (start >= 0 && v == prev + 1) {
            prev = v;
            continue;
        }
        if (start >= 0)
            put_run(t, start, prev, &any);
        start = prev = v;
    }
    if (start >= 0)
        put_run(t, start, prev, &any);
}

static int globals_differ(const record_t *rec)
{
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].grank != i)
            return 1;
    return 0;
}

/* One "comm ranks 0,1 pass 8 bytes" per distinct value of field f. */
static void describe_field(text_t *t, const record_t *rec, const uint64_t *keys, field_t f)
{
    char val[512];
    int globals = globals_differ(rec);
    tput(t, "%s: members disagree on %s:", ses_mpi_name(rec->m[0].c.hdr.opcode), field_what[f]);
    for (int i = 0, first = 1; i < rec->size; i++) {
        int j, cnt = 0;
        for (j = 0; j < i && keys[j] != keys[i]; j++)
            ;
        if (j < i)
            continue; /* value already listed */
        for (j = i; j < rec->size; j++)
            cnt += keys[j] == keys[i];
        tput(t, "%s comm rank%s ", first ? "" : ",", cnt > 1 ? "s" : "");
        put_ranks(t, rec, keys, keys[i], 0);
        if (globals) {
            tput(t, " (global ");
            put_ranks(t, rec, keys, keys[i], 1);
            tput(t, ")");
        }
        put_value(val, sizeof val, &rec->m[i], f);
        tput(t, " %s %s", cnt > 1 ? "pass" : "passes", val);
        first = 0;
    }
}

/* Describe the first field the members disagree on into text ("...") if
 * it is too long); 0 if they all agree, -1 out of memory. */
int ses_args_differ(const record_t *rec, char *text, size_t len)
{
    char big[1024];
    text_t t = {big, sizeof big, 0};
    int nf = mf_opcode_has_counts(rec->m[0].c.hdr.opcode) ? F_NFIELDS : F_COUNTS;
    uint64_t *keys = malloc((size_t)rec->size * sizeof *keys);
    if (!keys)
        return -1;
    for (int f = 0; f < nf; f++)
        if (field_keys(rec, (field_t)f, keys)) {
            describe_field(&t, rec, keys, (field_t)f);
            break;
        }
    free(keys);
    if (t.n == 0)
        return 0;
    ses_textf(text, len, "%s", big);
    if (t.n >= len && len > 4)
        memcpy(text + len - 4, "...", 4);
    return 1;
}
