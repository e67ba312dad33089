/*
 * bench/model_speed's parts (see model_speed.c):
 *   model_speed.c            options, clocks, networks, main
 *   model_speed_traffic.c    (a) router speed under synthetic traffic
 *   model_speed_allreduce.c  (b) one 1 MiB Allreduce per torus size
 */
#ifndef MODEL_SPEED_H
#define MODEL_SPEED_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coll/run.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "traffic/traffic.h"

#define PARAMS "u280"

typedef struct {
    int quick;
    int traffic, allreduce;
    unsigned limit_s; /* per-size wall limit of the allreduce children */
    double mem_gib;   /* per-size address-space limit (RLIMIT_AS), 0 = none */
} opts_t;

/* A network built the way mpifpga-sim's setup() builds it. */
typedef struct {
    mf_params_t p;
    mf_topo_t t;
    mf_net_t *n;
} net_t;

extern int g_busy;  /* some run got < 90 % of a core */
extern int g_quick; /* --quick */

double now_s(void);
double cpu_s(void); /* CPU time of this process */
int net_open(net_t *w, int k, char *err, size_t len);
void net_close(net_t *w);
int bench_traffic(const opts_t *o);
int bench_allreduce(const opts_t *o);
void machine_probe_print(void); /* machine_probe.c */

#endif
