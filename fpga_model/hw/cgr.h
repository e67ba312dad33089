/*
 * Configurable gather/reduction unit (001 sec. 4.3, fig. 7; cgr.c): the
 * AgLUs reduce one datapath width of every input of a REDUCE flow.  Its
 * units are granted per cycle through the switch's grant port
 * (mf_grant_port_t in hw/ports.h); the CCM's flows reach mf_cgr_reduce
 * through their combine port, wired in switch.c.
 */
#ifndef MF_HW_CGR_H
#define MF_HW_CGR_H

#include "hw/ports.h"

/* Reduce n bytes (whole elements) of every input of f into out; an
 * mf_combine_fn. */
size_t mf_cgr_reduce(mf_stream_pool_t *p, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                     int *zero);

#endif
