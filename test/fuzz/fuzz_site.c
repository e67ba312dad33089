/*
 * Fuzz target: the report's instance records (src/profile/site_merge.c):
 * the records every rank sends rank 0 at MPI_Finalize, merged per call
 * site, and the answers addr2line gives for them.  Input: byte 0 = number
 * of records (mod 9), then the records' raw bytes (what the gather
 * delivers), then lines of addr2line output, two per instance (an inlined
 * frame, depth 1, for every third answer).
 *
 * Invariants: every record lands in exactly one instance with its key;
 * the instances account for every rank's record; every string the JSON
 * report prints is NUL-terminated; a named file has a line > 0.
 */
#include <string.h>

#include "fuzz.h"
#include "profile/site_merge.h"

static int terminated(const char *s, size_t cap) { return strnlen(s, cap) < cap; }

/* Same call site: a module name is at most sizeof module - 1 characters. */
static int key_equal(const mf_site_rec_t *a, const mf_site_rec_t *b)
{
    return a->offset == b->offset && a->coll == b->coll &&
           strncmp(a->module, b->module, sizeof a->module - 1) == 0;
}

static void check_strings(const mf_site_merged_t *m)
{
    const mf_site_rec_t *s = &m->sum;
    FUZZ_CHECK(terminated(s->module, sizeof s->module) && terminated(s->func, sizeof s->func) &&
                   terminated(s->dtype, sizeof s->dtype) && terminated(s->op, sizeof s->op),
               "merged instance strings are NUL-terminated");
    FUZZ_CHECK((m->line > 0) == (m->file != NULL) && m->line >= 0,
               "a named file has a line > 0, else none");
    FUZZ_CHECK(!m->file || m->file[0], "a named file has a name");
    FUZZ_CHECK(mf_site_name(m) != NULL, "every instance has a function string");
}

static void check_merge(const mf_site_rec_t *recs, int n, const mf_site_merged_t *m, int nm)
{
    int ranks = 0;
    FUZZ_CHECK(nm >= (n > 0) && nm <= n, "instance count within 1..records");
    for (int j = 0; j < nm; j++) {
        FUZZ_CHECK(m[j].ranks >= 1, "every instance has a rank");
        ranks += m[j].ranks;
        check_strings(&m[j]);
    }
    FUZZ_CHECK(ranks == n, "instances account for every record");
    for (int i = 0; i < n; i++) {
        int hits = 0;
        for (int j = 0; j < nm; j++)
            if (key_equal(&m[j].sum, &recs[i])) {
                hits++;
                FUZZ_CHECK(m[j].calls_max >= recs[i].calls, "calls_max covers each rank");
            }
        FUZZ_CHECK(hits == 1, "each record is in exactly one instance");
    }
}

/* Next line of text[*pos..n) into buf (truncated to cap - 1), as fgets +
 * chomp would give it; 0 at the end. */
static int next_line(const uint8_t *text, size_t n, size_t *pos, char *buf, size_t cap)
{
    if (*pos >= n)
        return 0;
    size_t k = 0;
    while (*pos < n && text[*pos] != '\n') {
        if (k + 1 < cap && text[*pos] != '\0')
            buf[k++] = (char)text[*pos];
        (*pos)++;
    }
    (*pos)++;
    buf[k] = '\0';
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n = data[0] % 9;
    size_t rec_bytes = (size_t)n * sizeof(mf_site_rec_t), have = size - 1;
    mf_site_rec_t *recs = calloc((size_t)(n ? n : 1), sizeof *recs);
    mf_site_merged_t *m = NULL;
    int nm = 0;
    FUZZ_CHECK(recs != NULL, "calloc");
    memcpy(recs, data + 1, have < rec_bytes ? have : rec_bytes);
    if (mf_site_merge(recs, n, &m, &nm) == 0) {
        check_merge(recs, n, m, nm);
        size_t pos = 1 + rec_bytes;
        char func[512], fileline[512];
        for (int i = 0; nm && next_line(data, size, &pos, func, sizeof func) &&
                        next_line(data, size, &pos, fileline, sizeof fileline);
             i++) {
            FUZZ_CHECK(mf_site_take_answer(&m[i % nm], i % 3 == 2, func, fileline) == 0,
                       "an answer is taken");
            check_strings(&m[i % nm]);
        }
    }
    mf_site_merged_free(m, nm);
    free(recs);
    return 0;
}
