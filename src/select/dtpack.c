/* Datatypes by their type map (dtpack.h). */
#include <stdlib.h>

#include "select/dtpack.h"

/* MPICH's builtin handles (kind bits 0x4...) are the plain C and Fortran
 * types: contiguous, size == extent.  The pair types and every derived
 * type have other handle kinds. */
static int is_builtin_handle(MPI_Datatype t)
{
    return ((unsigned)t & 0xc0000000u) == 0x40000000u;
}

static int combiner_of(MPI_Datatype t, int *ni, int *na, int *nd)
{
    int combiner;
    if (PMPI_Type_get_envelope(t, ni, na, nd, &combiner) != MPI_SUCCESS)
        return -1;
    return combiner;
}

int mf_dt_contiguous(MPI_Datatype t)
{
    if (is_builtin_handle(t))
        return 1;
    int ni, na, nd, size;
    MPI_Aint lb, extent;
    /* Derived types are always packed: size == extent does not rule out
     * holes where entries overlap, and packing a contiguous one is cheap. */
    if (combiner_of(t, &ni, &na, &nd) != MPI_COMBINER_NAMED)
        return 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS)
        return 0;
    return lb == 0 && extent == (MPI_Aint)size;
}

int mf_dt_pack(const mf_typed_buf_t *b, uint64_t bytes, void **out)
{
    MPI_Count pos = 0;
    void *buf = malloc(bytes ? (size_t)bytes : 1);
    *out = NULL;
    if (!buf)
        return -1;
    if (PMPI_Pack_c(b->buf, (MPI_Count)b->count, b->type, buf, (MPI_Count)bytes, &pos,
                    MPI_COMM_SELF) != MPI_SUCCESS ||
        (uint64_t)pos != bytes) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

int mf_dt_unpack(const void *in, uint64_t bytes, const mf_typed_buf_t *b)
{
    MPI_Count pos = 0;
    if (PMPI_Unpack_c(in, (MPI_Count)bytes, &pos, (void *)b->buf, (MPI_Count)b->count, b->type,
                      MPI_COMM_SELF) != MPI_SUCCESS)
        return -1;
    return (uint64_t)pos == bytes ? 0 : -1;
}
