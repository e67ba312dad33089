/*
 * Datatypes by their type map.  The switch moves and reduces packed bytes:
 * `count` elements of a type travel as count x MPI_Type_size bytes in type
 * map order (MPI_Pack's layout), never as a copy of count x extent bytes of
 * memory.  A type whose elements lie back to back without holes (every
 * builtin C/Fortran type) is used in place; any other type -- the pair
 * types of MINLOC/MAXLOC whose size differs from their extent
 * (MPI_DOUBLE_INT: size 12, extent 16), vectors, structs, resized types --
 * is packed into a staging buffer before the call and unpacked after it.
 * Ranks may pass different types with one type signature (MPI-4.0 sec.
 * 5.1.2): the packed bytes are the same, so the wire never depends on how
 * a rank built its type.
 */
#ifndef MF_DTPACK_H
#define MF_DTPACK_H

#include <mpi.h>
#include <stdint.h>

/* 1 when `count` elements of t are count x size contiguous bytes from the
 * buffer's address (no holes, lower bound 0, extent == size). */
int mf_dt_contiguous(MPI_Datatype t);

/* A buffer as the call describes it: `count` elements of `type` at `buf`. */
typedef struct {
    const void *buf;
    uint64_t count;
    MPI_Datatype type;
} mf_typed_buf_t;

/* Pack b into a new buffer of `bytes` (its packed size): *out, to free().
 * 0 on success; nonzero when memory or MPI_Pack fails. */
int mf_dt_pack(const mf_typed_buf_t *b, uint64_t bytes, void **out);

/* Unpack `bytes` packed bytes into b's buffer.  0 on success. */
int mf_dt_unpack(const void *in, uint64_t bytes, const mf_typed_buf_t *b);

#endif
