/* Merging and naming the collective instances for the report (site_report.h). */
#define _GNU_SOURCE /* asprintf, getline */
#include "profile/site_report.h"

#include <json-c/json.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/callsite.h"
#include "profile/site_merge.h"

extern char **environ;

/* Every rank's records on rank 0 (*all, *n); 0, or -1 (then NULL). */
static int gather(int rank, int nranks, mf_site_rec_t **all, int *n)
{
    int mine = mf_sites_count(), *counts = NULL, *displs = NULL, rc = -1;
    mf_site_rec_t *local = malloc((size_t)(mine ? mine : 1) * sizeof *local);
    *all = NULL, *n = 0;
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
    }
    int ok = local && (rank != 0 || (counts && displs)), all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok)
        goto out;
    mf_sites_copy(local);
    int bytes = mine * (int)sizeof *local;
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < nranks; i++) {
            displs[i] = i ? displs[i - 1] + counts[i - 1] : 0;
            *n += counts[i] / (int)sizeof *local;
        }
        *all = malloc((size_t)(*n ? *n : 1) * sizeof **all);
    }
    /* a failed malloc on rank 0 still has to take part in the gather */
    PMPI_Gatherv(local, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    rc = rank != 0 || *all ? 0 : -1;
out:
    free(local);
    free(counts);
    free(displs);
    return rc;
}

/* ---- naming sites: addr2line -a -i -f -C -e MODULE ADDR... ---------------- */

static void chomp(char *s) { s[strcspn(s, "\n")] = '\0'; }

/* Read addr2line's answers: per address an "0x..." line (-a), then a
 * function line and a file:line line per inlined frame (-i), innermost
 * first.  Lines of any length (getline). */
static void read_answers(FILE *in, mf_site_merged_t *m, const int *idx, int n)
{
    char *func = NULL, *fileline = NULL;
    size_t fcap = 0, lcap = 0;
    int i = -1, depth = 0;
    while (getline(&func, &fcap, in) > 0) {
        chomp(func);
        if (!strncmp(func, "0x", 2)) { /* the next address (no C name starts so) */
            i++, depth = 0;
            continue;
        }
        if (getline(&fileline, &lcap, in) <= 0)
            break;
        chomp(fileline);
        if (i >= 0 && i < n)
            mf_site_take_answer(&m[idx[i]], depth++, func, fileline);
    }
    free(func);
    free(fileline);
}

/* Name the sites of m[] that lie in `module` (indices idx[0..n)). */
static void addr2line(mf_site_merged_t *m, const int *idx, int n, const char *module)
{
    enum { NOPT = 7 };
    char **argv = calloc((size_t)n + NOPT + 1, sizeof *argv), (*addrs)[24] = calloc((size_t)n, 24);
    int fd[2] = {-1, -1};
    pid_t pid;
    FILE *in = NULL;
    if (!argv || !addrs || pipe(fd))
        goto out;
    argv[0] = "addr2line", argv[1] = "-a", argv[2] = "-i", argv[3] = "-f", argv[4] = "-C";
    argv[5] = "-e", argv[6] = (char *)module;
    for (int i = 0; i < n; i++) {
        snprintf(addrs[i], sizeof addrs[i], "0x%llx", (unsigned long long)m[idx[i]].sum.offset);
        argv[NOPT + i] = addrs[i];
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", 1, 0);
    int spawned = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    fd[1] = -1;
    if (!spawned || !(in = fdopen(fd[0], "r")))
        goto out;
    fd[0] = -1;
    read_answers(in, m, idx, n);
    fclose(in);
    waitpid(pid, NULL, 0);
out:
    if (fd[0] >= 0)
        close(fd[0]);
    if (fd[1] >= 0)
        close(fd[1]);
    free(argv);
    free(addrs);
}

/* Free-form Fortran source (.f90, .F90, .f95, .f03, .f08, any case). */
static int free_form_fortran(const char *file)
{
    static const char *const ext[] = {".f90", ".f95", ".f03", ".f08"};
    const char *dot = strrchr(file, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
        if (!strcasecmp(dot, ext[i]))
            return 1;
    return 0;
}

/* Does a free-form line end with '&' (before a '!' comment)?  A '!' in a
 * string constant is taken for a comment: the call statements this is for
 * do not hold any. */
static int continued(const char *text)
{
    size_t n = strcspn(text, "!\n");
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
        n--;
    return n > 0 && text[n - 1] == '&';
}

/* gfortran's line for a call continued over several lines is its last;
 * the site is the line where the statement starts. */
static long statement_start(const char *file, long line)
{
    FILE *f = free_form_fortran(file) ? fopen(file, "r") : NULL;
    char *text = NULL;
    size_t cap = 0;
    long start = line, i = 0, cur = 1;
    int prev_continued = 0;
    if (!f)
        return line;
    while (++i <= line && getline(&text, &cap, f) >= 0) {
        cur = prev_continued ? cur : i;
        prev_continued = continued(text);
    }
    if (i > line)
        start = cur;
    free(text);
    fclose(f);
    return start;
}

/* One addr2line run per module (no addr2line: sites stay module+offset). */
static void name_sites(mf_site_merged_t *m, int nm)
{
    size_t cap = (size_t)(nm ? nm : 1);
    int *idx = malloc(cap * sizeof *idx), *done = calloc(cap, sizeof *done);
    for (int i = 0; idx && done && i < nm; i++) {
        if (done[i])
            continue;
        int n = 0;
        for (int j = i; j < nm; j++)
            if (!done[j] && !strcmp(m[j].sum.module, m[i].sum.module))
                idx[n++] = j, done[j] = 1;
        addr2line(m, idx, n, m[i].sum.module);
    }
    for (int i = 0; i < nm; i++)
        if (m[i].file)
            m[i].line = statement_start(m[i].file, m[i].line);
    free(idx);
    free(done);
}

/* ---- JSON ------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static void add_str(json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

static void add_int(json_object *o, const char *k, int64_t v)
{
    json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_dbl(json_object *o, const char *k, double v)
{
    json_object_object_add(o, k, json_object_new_double(v));
}

static json_object *instance_json(const mf_site_merged_t *m)
{
    const mf_site_rec_t *s = &m->sum;
    json_object *o = json_object_new_object();
    char *site = NULL, off[24];
    snprintf(off, sizeof off, "0x%llx", (unsigned long long)s->offset);
    int len = m->line ? asprintf(&site, "%s:%ld", base_name(m->file), m->line)
                      : asprintf(&site, "%s+%s", base_name(s->module), off);
    add_str(o, "collective", mf_coll_id_name((mf_coll_id_t)s->coll));
    add_str(o, "function", mf_site_name(m));
    if (m->inlined_in && strcmp(m->inlined_in, mf_site_name(m)))
        add_str(o, "inlined_in", m->inlined_in);
    add_str(o, "file", m->file ? m->file : "");
    add_int(o, "line", m->line);
    add_str(o, "site", len >= 0 ? site : "");
    if (len >= 0)
        free(site);
    add_str(o, "module", s->module);
    add_str(o, "offset", off);
    add_int(o, "calls", (int64_t)m->calls_max);
    add_int(o, "ranks", m->ranks);
    add_int(o, "bytes_per_call", s->calls ? (int64_t)(s->bytes / s->calls) : 0);
    add_str(o, "datatype", s->dtype);
    add_str(o, "op", s->op);
    add_int(o, "comm_size", s->comm_size);
    add_int(o, "offloaded", (int64_t)m->offloaded_max);
    add_dbl(o, "host_us", s->host_us / m->ranks);
    add_dbl(o, "host_us_max", m->host_us_max);
    add_dbl(o, "offload_us", s->offload_us / m->ranks);
    add_dbl(o, "baseline_model_us", s->baseline_us / m->ranks);
    add_int(o, "baseline_model_calls", (int64_t)m->baseline_calls_max);
    return o;
}

json_object *mf_site_report(int rank, int nranks)
{
    mf_site_rec_t *all = NULL;
    mf_site_merged_t *m = NULL;
    json_object *arr = NULL;
    int n = 0, nm = 0;
    if (gather(rank, nranks, &all, &n) || rank != 0)
        goto out;
    if (mf_site_merge(all, n, &m, &nm))
        goto out;
    name_sites(m, nm);
    arr = json_object_new_array();
    for (int i = 0; i < nm; i++)
        json_object_array_add(arr, instance_json(&m[i]));
out:
    free(all);
    mf_site_merged_free(m, nm);
    return arr;
}
