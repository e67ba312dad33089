/*
 * mpifpga-validate: the model against the published figures (vd.h,
 * doc/validation.md).  `make validate` runs it; exit status 1 if any row
 * FAILs, 2 on a usage error.
 *   mpifpga-validate [--srcdir DIR] [--quick] [--only switch|links|fattree|baseline]
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "vd.h"

static const char *const verdict_name[] = {"PASS", "FAIL", "INFO", "MISS"};

void vd_section(vd_t *v, const char *title)
{
    fprintf(v->out, "\n== %s\n", title);
    fprintf(v->out, "%-22s | %-58s | %-16s | %-26s | %-18s | %s\n", "source", "check",
            "published", "modeled", "tolerance", "result");
    fflush(v->out);
}

void vd_row(vd_t *v, const char *source, const char *what, const char *published,
            const char *modeled, const char *tolerance, vd_verdict_t verdict)
{
    fprintf(v->out, "%-22s | %-58s | %-16s | %-26s | %-18s | %s\n", source, what, published,
            modeled, tolerance, verdict_name[verdict]);
    fflush(v->out);
    switch (verdict) {
    case VD_PASS: v->npass++; break;
    case VD_FAIL: v->nfail++; break;
    case VD_INFO: v->ninfo++; break;
    case VD_MISS: v->nmiss++; break;
    }
}

vd_verdict_t vd_within_rel(double modeled, double published, double rel)
{
    return fabs(modeled - published) <= rel * fabs(published) ? VD_PASS : VD_FAIL;
}

vd_verdict_t vd_within(double modeled, double lo, double hi)
{
    return modeled >= lo && modeled <= hi ? VD_PASS : VD_FAIL;
}

int vd_model_error(vd_t *v, const char *source, const char *what, const char *err)
{
    char m[200];
    snprintf(m, sizeof m, "error: %.150s", err);
    vd_row(v, source, what, "-", m, "-", VD_FAIL);
    return -1;
}

mf_net_t *vd_open_net(const mf_params_t *p, const char *topo, int nodes, mf_topo_t *t, char *err,
                      size_t len)
{
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    if (mf_topo_parse(topo, &spec, err, len))
        return NULL;
    spec.oversub = spec.oversub ? spec.oversub : (int)p->oversub;
    if (mf_topo_build(&spec, nodes, 1, t, err, len))
        return NULL;
    mf_net_t *n = mf_net_create(p, t, err, len);
    if (!n)
        mf_topo_free(t);
    return n;
}

typedef struct {
    const char *name, *title;
    int (*run)(vd_t *v);
} group_t;

static const group_t groups[] = {
    {"switch", "switch: 001 Eq. 1, Eq. 2, Table 2", vd_checks_switch},
    {"links", "links: 000 Table 3.3, 002 Eqs. 1-3, 004 hop model", vd_checks_links},
    {"fattree", "fat tree over torus: 001 sec. 6.2.2, fig. 12", vd_checks_fattree},
    {"baseline", "baseline MPI: 001 Table 4, fig. 10, Eqs. 3-6", vd_checks_baseline},
};
#define NGROUPS (int)(sizeof groups / sizeof groups[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: mpifpga-validate [--srcdir DIR] [--quick] [--only GROUP]\n"
               "groups: switch links fattree baseline\n");
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"srcdir", required_argument, 0, 's'},
                                       {"quick", no_argument, 0, 'q'},
                                       {"only", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    vd_t v = {.out = stdout, .srcdir = "."};
    const char *only = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': v.srcdir = optarg; break;
        case 'q': v.quick = 1; break;
        case 'o': only = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "mpifpga-validate: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    int found = !only;
    for (int g = 0; g < NGROUPS; g++)
        found |= only && !strcmp(only, groups[g].name);
    if (!found) {
        fprintf(stderr, "mpifpga-validate: --only: unknown group '%s'\n", only);
        usage(stderr);
        return 2;
    }
    printf("# mpifpga-validate: the model against the published figures (doc/validation.md)\n");
    for (int g = 0; g < NGROUPS; g++) {
        if (only && strcmp(only, groups[g].name))
            continue;
        /* rows going to a file (make validate > log): say where we are */
        if (isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO)) {
            fprintf(stderr, "\r\033[K# mpifpga-validate: group %d of %d, %s ...", g + 1, NGROUPS,
                    groups[g].name);
            fflush(stderr);
        }
        vd_section(&v, groups[g].title);
        groups[g].run(&v); /* a check that cannot run prints its own FAIL row */
    }
    if (isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO))
        fputs("\r\033[K", stderr);
    printf("\n# %d PASS, %d FAIL, %d MISS (known, documented), %d INFO\n", v.npass, v.nfail,
           v.nmiss, v.ninfo);
    return v.nfail ? 1 : 0;
}
