/* mpifpga-sim: the sweep's rows printed as table, csv or json. */
#include <json-c/json.h>
#include <stdio.h>

#include "cli/sim_cli.h"
#include "net/topo.h"
#include "params/params.h"


static double speedup(const row_t *r) { return r->t.avg_us > 0 ? r->bl.avg_us / r->t.avg_us : 0; }

static void json_add_analytic(json_object *r, const row_t *w)
{
    static const char *const keys[8] = {"baseline_last_us", "eq3_us", "offload_last_us", "eq4_us",
                                        "baseline_root_us", "eq5_us", "offload_root_us", "eq6_us"};
    double v[8] = {w->bl_last, w->eq.eq3, w->is_last, w->eq.eq4,
                   w->bl_root, w->eq.eq5, w->is_root, w->eq.eq6};
    for (int i = 0; i < 8; i++)
        json_object_object_add(r, keys[i], json_object_new_double(v[i]));
}

/* 001 Eqs. 3-6 beside one simulated call (--analytic). */
static void print_analytic(const row_t *rows, int nrows)
{
    printf("# 001 Eqs. 3-6 (LogGP, sec. 5) beside the simulation, one call, us:\n"
           "#   rank P-1: baseline sim / Eq. 3, offload sim / Eq. 4;"
           " root: baseline sim / Eq. 5, offload sim / Eq. 6\n");
    printf("%-10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "# Size", "Bl(P-1)", "Eq.3",
           "Is(P-1)", "Eq.4", "Bl(root)", "Eq.5", "Is(root)", "Eq.6");
    for (int i = 0; i < nrows; i++) {
        const row_t *r = &rows[i];
        printf("%-10llu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n",
               (unsigned long long)r->bytes, r->bl_last, r->eq.eq3, r->is_last, r->eq.eq4,
               r->bl_root, r->eq.eq5, r->is_root, r->eq.eq6);
    }
    if (nrows) {
        const mf_loggp_t *b = &rows[0].eq.bl, *s = &rows[0].eq.is;
        printf("# terms (us; G in us/B): baseline L %.3f O_s %.3f O_r %.3f g %.3f G %.6f;"
               " in-switch L %.3f O_s %.3f O_r %.3f G %.6f\n",
               b->L, b->os, b->orr, b->g, b->G, s->L, s->os, s->orr, s->G);
    }
}

void print_rows(const opts_t *o, const mf_net_t *n, const row_t *rows, int nrows)
{
    char topo[64];
    mf_topo_describe(mf_net_topo(n), topo, sizeof topo);
    int ranks = mf_net_nranks(n);
    const char *cname = mf_opcode_name(o->coll);
    if (o->fmt == FMT_CSV) {
        printf("collective,topology,nodes,bytes,offload_us%s%s\n",
               o->baseline ? ",baseline_us,speedup" : "",
               o->analytic ? ",baseline_last_us,eq3_us,offload_last_us,eq4_us,baseline_root_us,"
                             "eq5_us,offload_root_us,eq6_us" : "");
        for (int i = 0; i < nrows; i++) {
            const row_t *r = &rows[i];
            printf("%s,%s,%d,%llu,%.3f", cname, topo, mf_net_topo(n)->nnodes,
                   (unsigned long long)r->bytes, r->t.avg_us);
            if (o->baseline)
                printf(",%.3f,%.3f", r->bl.avg_us, speedup(r));
            if (o->analytic)
                printf(",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", r->bl_last, r->eq.eq3,
                       r->is_last, r->eq.eq4, r->bl_root, r->eq.eq5, r->is_root, r->eq.eq6);
            printf("\n");
        }
        return;
    }
    if (o->fmt == FMT_JSON) {
        json_object *root = json_object_new_object(), *arr = json_object_new_array();
        json_object_object_add(root, "collective", json_object_new_string(cname));
        json_object_object_add(root, "topology", json_object_new_string(topo));
        json_object_object_add(root, "nodes", json_object_new_int(mf_net_topo(n)->nnodes));
        json_object_object_add(root, "ranks", json_object_new_int(ranks));
        json_object_object_add(root, "params", json_object_new_string(mf_net_params(n)->name));
        json_object_object_add(root, "datatype", json_object_new_string(mf_dtype_name(o->dtype)));
        json_object_object_add(root, "loop", json_object_new_string(o->loop_osu ? "osu" : "single"));
        if (o->loop_osu)
            json_object_object_add(root, "warmup_iterations", json_object_new_int(o->warmup));
        if (o->baseline)
            json_object_object_add(root, "host_params", json_object_new_string(o->host));
        for (int i = 0; i < nrows; i++) {
            json_object *r = json_object_new_object();
            json_object_object_add(r, "bytes", json_object_new_int64((int64_t)rows[i].bytes));
            json_object_object_add(r, "offload_us", json_object_new_double(rows[i].t.avg_us));
            json_object_object_add(r, "min_us", json_object_new_double(rows[i].t.min_us));
            json_object_object_add(r, "max_us", json_object_new_double(rows[i].t.max_us));
            json_object_object_add(r, "iterations", json_object_new_int(rows[i].iters));
            json_object_object_add(r, "simulated_iterations",
                                   json_object_new_int(rows[i].simulated));
            if (o->baseline) {
                json_object_object_add(r, "baseline_us", json_object_new_double(rows[i].bl.avg_us));
                json_object_object_add(r, "speedup", json_object_new_double(speedup(&rows[i])));
                json_object_object_add(r, "baseline_simulated_iterations",
                                       json_object_new_int(rows[i].bl_simulated));
            }
            if (o->analytic)
                json_add_analytic(r, &rows[i]);
            json_object_array_add(arr, r);
        }
        json_object_object_add(root, "results", arr);
        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
        json_object_put(root);
        return;
    }
    printf("# mpifpga-sim: osu_%s through the modeled switch network\n", cname);
    printf("# topology %s, %d nodes, %d ranks, params %s, datatype %s\n", topo,
           mf_net_topo(n)->nnodes, ranks, mf_net_params(n)->name, mf_dtype_name(o->dtype));
    if (o->baseline)
        printf("# baseline: MPICH's algorithms as point-to-point messages on the same fabric, "
               "host params %s\n", o->host);
    printf("%-10s %18s %18s %18s %12s", "# Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)", "Iterations");
    if (o->baseline)
        printf(" %15s %10s", "Baseline(us)", "Speedup");
    printf("\n");
    for (int i = 0; i < nrows; i++) {
        printf("%-10llu %18.2f %18.2f %18.2f %12d", (unsigned long long)rows[i].bytes,
               rows[i].t.avg_us, rows[i].t.min_us, rows[i].t.max_us, rows[i].iters);
        if (o->baseline)
            printf(" %15.2f %10.2f", rows[i].bl.avg_us, speedup(&rows[i]));
        printf("\n");
    }
    if (o->analytic)
        print_analytic(rows, nrows);
}

