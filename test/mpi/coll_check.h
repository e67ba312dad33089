/*
 * coll_check's parts (see coll_check.c for what it checks and how):
 *   coll_check_data.c  types and ops, sizes, verdicts, input data, guarded buffers
 *   coll_check_case.c  one case: the MPI_ call and the PMPI_ reference, compared
 *   coll_check.c       the case list, the communicators, options, main
 */
#ifndef COLL_CHECK_H
#define COLL_CHECK_H

#include <mpi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
enum kind { K_SINT, K_UINT, K_FLT };
/* category of the type for the MPI standard's op table (MPI-4.0 6.9.2) */
enum cat { CAT_CINT, CAT_BYTE, CAT_FLOAT, CAT_CHAR };
typedef struct {
    MPI_Datatype t;
    const char *name;
    int size;
    enum kind kind;
    enum cat cat;
} tinfo_t;
#define NTYPES 12 /* entries of types[] */
enum { T_CHAR, T_SCHAR, T_UCHAR, T_BYTE, T_SHORT, T_INT, T_LONG, T_UNSIGNED,
       T_UINT64, T_INT8, T_FLOAT, T_DOUBLE };
enum opk { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR,
           O_BXOR, NOPS, O_NONE = NOPS };
#define NREP 18  /* representative (type, op) pairs, rep_pairs[] */
#define NREPT 12 /* types in rotation, rep_types[] */
/* ------------------------------------------------------------------------ */
enum coll { C_REDUCE, C_ALLREDUCE, C_BCAST, C_SCATTER, C_GATHER, C_ALLGATHER,
            C_RS, C_RSB, C_BARRIER, C_NONEXACT, NCOLLS };
enum shape { S_WORLD, S_HALVES, S_ODD, S_DUP, S_CART, S_SCRAMBLED, NSHAPES };
/* sizes: elements = fixed count (kind 1) or bytes / type size (kind 0) */
typedef struct { const char *label; int by_elems; long val; } size_t_;
#define MAXSIZES 32
#define BIG_BYTES (1L << 20)
enum var { V_STD, V_INPLACE, V_LARGE };
typedef struct {
    int coll, shape, type, op, var, rootsel; /* rootsel: 0 = rank 0, 1 = last */
    long count;
    int nonstd;
} case_t;
#define BATCH 64
#define GUARD 64
#define GUARD_BYTE 0xEE
#define JUNK_BYTE 0xA5
typedef struct { unsigned char *p; size_t bytes; } gbuf_t;
#define CALL(pm, fn, ...) ((pm) ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))
typedef struct {
    gbuf_t send, recv;
    const void *sb;  /* what is passed as sendbuf (may be MPI_IN_PLACE / NULL) */
    void *rb;        /* what is passed as recvbuf */
} bufs_t;

extern MPI_Op ops[NOPS];
extern int strict_pairs;
extern const char *shapenames[NSHAPES];
extern MPI_Comm shape_comm[NSHAPES];
extern int shape_on[NSHAPES];
extern size_t_ sizes[MAXSIZES];
extern int nsizes;
extern const char *varnames[];
extern int wrank, wsize;
extern int quick, list_only, verbose;
extern int coll_on[NCOLLS];
extern int nbatch, ncases, nfailed;
extern int vloc[BATCH];
extern char vmsg[BATCH][256];
extern char vdesc[BATCH][200];
extern int accepted[NTYPES][NOPS];
extern const int rep_pairs[NREP][2];
extern const int rep_types[NREPT];
extern int cur_ok;
extern char cur_msg[256];
extern tinfo_t types[NTYPES];
extern const char *opnames[NOPS];
extern const char *collnames[NCOLLS];
extern const char *collmpi[NCOLLS];
extern uint64_t case_seed;
extern int pmpi_always;
extern MPI_Comm cart_comm;

int standard(int t, int o);
int pair_ok(int t, int o);
void probe_pairs(void);
int is_reduction(int c);
int is_rooted(int c);
int has_inplace(int c);
long size_count(const size_t_ *s, int t);
int size_is_big(const size_t_ *s);
void flush_batch(void);
void fail(const char *fmt, ...);
void record(const char *desc);
uint64_t mix(uint64_t x);
uint64_t hash3(uint64_t a, uint64_t b, uint64_t c);
void store(void *buf, long i, int t, int64_t iv, double dv, uint64_t bits);
void gen_elem(void *buf, long pos, long i, int t, int op, uint64_t seed, int r);
void fill_gen(void *buf, long pos, long n, long gi0, int t, int op, uint64_t seed, int r);
void fmt_elem(char *out, size_t len, const void *buf, long i, int t);
gbuf_t galloc(size_t bytes, int junk);
int guard_ok(const gbuf_t *g);
void compare(const char *what, const void *got, const void *exp, long off, long n, int t);
int do_call(int pm, const case_t *c, bufs_t *b, MPI_Comm comm, int p, int root, const int *rc, const MPI_Count *rcc);
void setup(const case_t *c, bufs_t *b, int r, int p, int root, long total_rs, long rsoff, uint64_t seed, long *cmp_off, long *cmp_n);
void free_bufs(bufs_t *b);
void describe(char *d, size_t len, const case_t *c, int p, int root);
int mpich_unsigned_minmax(const case_t *c);
void unsigned_minmax_ref(const case_t *c, void *rb, long off, long n, long base, MPI_Comm comm, int p, uint64_t seed);
void run_case(case_t *c);
void run_nonexact(int shape, long n);
void run_barrier_timing(int shape);
void emit(int coll, int shape, int t, int op, long count, int var, int rootsel);
void enumerate(void);
int odd_part(int n);
void make_comms(void);
void free_comms(void);
void usage(void);
int parse_list(char *arg, const char *const *names, int n, int *on);
int add_size(const char *tok);

#endif
