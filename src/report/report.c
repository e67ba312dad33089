/* Run report (report.h). */
#include "report/report.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "profile/callsite.h"
#include "profile/site_report.h"

#define NCNT (3 + MF_FB_COUNT + 4) /* calls, offloaded, empty, fallback[], bytes x2, shm, queued */

const char *mf_report_class_name(int cls)
{
    static char names[MF_REP_CLASSES][40];
    if (cls < MF_C_COUNT)
        return mf_coll_id_name((mf_coll_id_t)cls);
    if (cls >= MF_REP_CLASSES)
        return "?";
    if (!names[cls][0])
        snprintf(names[cls], sizeof names[cls], cls < 2 * MF_C_COUNT ? "i%s" : "%s_init",
                 mf_coll_id_name((mf_coll_id_t)(cls % MF_C_COUNT)));
    return names[cls];
}

static void pack(const mf_coll_stats_t *s, uint64_t *v)
{
    v[0] = s->calls, v[1] = s->offloaded, v[2] = s->empty;
    memcpy(v + 3, s->fallback, sizeof s->fallback);
    v[3 + MF_FB_COUNT] = s->bytes;
    v[4 + MF_FB_COUNT] = s->offloaded_bytes;
    v[5 + MF_FB_COUNT] = s->shm_payload;
    v[6 + MF_FB_COUNT] = s->queued;
}

static void unpack(const uint64_t *v, mf_coll_stats_t *s)
{
    s->calls = v[0], s->offloaded = v[1], s->empty = v[2];
    memcpy(s->fallback, v + 3, sizeof s->fallback);
    s->bytes = v[3 + MF_FB_COUNT];
    s->offloaded_bytes = v[4 + MF_FB_COUNT];
    s->shm_payload = v[5 + MF_FB_COUNT];
    s->queued = v[6 + MF_FB_COUNT];
}

static json_object *coll_json(const mf_coll_stats_t *s)
{
    json_object *o = json_object_new_object(), *fb = json_object_new_object();
    json_object_object_add(o, "calls", json_object_new_int64((int64_t)s->calls));
    json_object_object_add(o, "offloaded", json_object_new_int64((int64_t)s->offloaded));
    for (int k = 1; k < MF_FB_COUNT; k++)
        json_object_object_add(fb, mf_fb_name((mf_fb_reason_t)k),
                               json_object_new_int64((int64_t)s->fallback[k]));
    json_object_object_add(o, "fallback", fb);
    json_object_object_add(o, "empty", json_object_new_int64((int64_t)s->empty));
    json_object_object_add(o, "bytes", json_object_new_int64((int64_t)s->bytes));
    json_object_object_add(o, "offloaded_bytes",
                           json_object_new_int64((int64_t)s->offloaded_bytes));
    json_object_object_add(o, "shm_payload_calls",
                           json_object_new_int64((int64_t)s->shm_payload));
    json_object_object_add(o, "queued_calls", json_object_new_int64((int64_t)s->queued));
    json_object_object_add(o, "modeled_us", json_object_new_double(s->modeled_us));
    return o;
}

/* Application time: MPI_Init to MPI_Finalize, slowest rank and mean. */
static json_object *app_json(const double *app_s, int nranks)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "wall_s", json_object_new_double(app_s[0]));
    json_object_object_add(o, "wall_s_mean", json_object_new_double(app_s[1] / nranks));
    return o;
}

static void write_json(const mf_report_t *r, const char *engine, int nranks, const char *path,
                       const mf_config_t *cfg, const double *app_s, json_object *instances)
{
    json_object *root = json_object_new_object(), *colls = json_object_new_object();
    json_object_object_add(root, "nranks", json_object_new_int(nranks));
    json_object_object_add(root, "device", json_object_new_string(cfg->device));
    json_object_object_add(root, "engine", json_object_new_string(engine));
    json_object_object_add(root, "mode",
                           json_object_new_string(cfg->profile ? "profile" : "offload"));
    /* what the collectives' numbers are (doc/architecture.md "Run report") */
    json_object_object_add(root, "counts",
                           json_object_new_string("calls, offloaded, fallback, empty and bytes "
                                                  "are summed over ranks; modeled_us is the "
                                                  "maximum over ranks"));
    json_object_object_add(root, "app", app_json(app_s, nranks));
    json_object *comms = json_object_new_object();
    json_object_object_add(comms, "memberships", json_object_new_int64((int64_t)r->comms));
    json_object_object_add(comms, "with_ct", json_object_new_int64((int64_t)r->comms_ct));
    json_object_object_add(comms, "ct_full", json_object_new_int64((int64_t)r->comms_ct_full));
    json_object_object_add(root, "communicators", comms);
    for (int c = 0; c < MF_REP_CLASSES; c++)
        json_object_object_add(colls, mf_report_class_name(c), coll_json(&r->c[c]));
    json_object_object_add(root, "collectives", colls);
    if (instances)
        json_object_object_add(root, "instances", json_object_get(instances));
    if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY))
        fprintf(stderr, "mpifpga: cannot write the report to MPIFPGA_REPORT=%s: %s\n", path,
                json_util_get_last_err());
    json_object_put(root);
}

static void print_summary(const mf_report_t *r, const char *engine, int nranks)
{
    fprintf(stderr, "mpifpga: %d ranks, %s\n", nranks, engine);
    fprintf(stderr, "mpifpga: calls are summed over the %d ranks (a call on every rank counts "
                    "%d times); modeled us is the slowest rank's\n", nranks, nranks);
    fprintf(stderr, "mpifpga: %-21s %9s %9s %9s %12s  %s\n", "collective", "calls", "offloaded",
            "fallback", "modeled us", "fallback reasons");
    for (int c = 0; c < MF_REP_CLASSES; c++) {
        const mf_coll_stats_t *s = &r->c[c];
        if (!s->calls)
            continue;
        uint64_t fb = 0;
        char why[256] = "";
        for (int k = 1; k < MF_FB_COUNT; k++) {
            if (!s->fallback[k])
                continue;
            fb += s->fallback[k];
            size_t n = strlen(why);
            snprintf(why + n, sizeof why - n, "%s%s %llu", n ? ", " : "",
                     mf_fb_name((mf_fb_reason_t)k), (unsigned long long)s->fallback[k]);
        }
        fprintf(stderr, "mpifpga: %-21s %9llu %9llu %9llu %12.3f  %s\n",
                mf_report_class_name(c), (unsigned long long)s->calls,
                (unsigned long long)s->offloaded, (unsigned long long)fb, s->modeled_us, why);
    }
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static double jnum(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

/* One line per collective instance (call site), as recorded. */
static void print_instances(json_object *instances)
{
    size_t n = json_object_array_length(instances);
    /* per rank (the mean over the ranks that call there), unlike the sums above */
    fprintf(stderr, "mpifpga: %-44s %10s %10s %12s %12s %12s\n", "instance (per rank)",
            "calls/rank", "bytes/call", "host us", "offload us", "baseline us");
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(instances, i);
        char name[160];
        snprintf(name, sizeof name, "%s@%s", jstr(o, "collective"), jstr(o, "site"));
        fprintf(stderr, "mpifpga: %-44s %10.0f %10.0f %12.3f %12.3f %12.3f\n", name,
                jnum(o, "calls"), jnum(o, "bytes_per_call"), jnum(o, "host_us"),
                jnum(o, "offload_us"), jnum(o, "baseline_model_us"));
    }
}

void mf_report_finalize(const mf_report_t *r, const char *engine_desc, int rank, int nranks,
                        const mf_config_t *cfg, double app_s)
{
    double app[2] = {0, 0}, mine_app[2] = {app_s, app_s};
    json_object *instances = mf_sites_on ? mf_site_report(rank, nranks) : NULL;
    uint64_t mine[MF_REP_CLASSES * NCNT + 3], sum[MF_REP_CLASSES * NCNT + 3];
    double us[MF_REP_CLASSES], us_max[MF_REP_CLASSES];
    for (int c = 0; c < MF_REP_CLASSES; c++) {
        pack(&r->c[c], mine + c * NCNT);
        us[c] = r->c[c].modeled_us;
    }
    mine[MF_REP_CLASSES * NCNT] = r->comms;
    mine[MF_REP_CLASSES * NCNT + 1] = r->comms_ct;
    mine[MF_REP_CLASSES * NCNT + 2] = r->comms_ct_full;
    int n = MF_REP_CLASSES * NCNT + 3;
    if (PMPI_Reduce(mine, sum, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
        PMPI_Reduce(us, us_max, MF_REP_CLASSES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        PMPI_Reduce(&mine_app[0], &app[0], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        PMPI_Reduce(&mine_app[1], &app[1], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
        goto out;
    if (rank != 0 || (!cfg->report[0] && !cfg->verbose))
        goto out;
    mf_report_t tot;
    memset(&tot, 0, sizeof tot);
    for (int c = 0; c < MF_REP_CLASSES; c++) {
        unpack(sum + c * NCNT, &tot.c[c]);
        tot.c[c].modeled_us = us_max[c];
    }
    tot.comms = sum[MF_REP_CLASSES * NCNT];
    tot.comms_ct = sum[MF_REP_CLASSES * NCNT + 1];
    tot.comms_ct_full = sum[MF_REP_CLASSES * NCNT + 2];
    if (cfg->report[0])
        write_json(&tot, engine_desc, nranks, cfg->report, cfg, app, instances);
    if (cfg->verbose)
        print_summary(&tot, engine_desc, nranks);
    if (cfg->verbose && instances)
        print_instances(instances);
out:
    if (instances)
        json_object_put(instances);
}
