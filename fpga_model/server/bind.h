/*
 * Where mpifpga-switchd runs: on a machine with cores to spare it binds
 * itself to the last core, away from the ranks (which MPI launchers place
 * from core 0 up), so the model does not steal their cycles.
 */
#ifndef MF_SERVER_BIND_H
#define MF_SERVER_BIND_H

#include <stddef.h>

/* Bind this process to the last core if the machine has more cores than
 * local_ranks (ranks sharing it with the engine).  desc says what was done
 * or why not.  Returns 1 if bound, 0 if left unbound on purpose, -1 on an
 * error (desc says which; the process is left unbound). */
int mf_bind_engine(int local_ranks, char *desc, size_t len);

#endif
