/* Datatype and op selection (select.h). */
#include "select/select.h"

#include <stddef.h>

/* op classes a type accepts; CPLX: MPI_SUM and MPI_PROD on complex types */
enum { ARITH = 1, LOGIC = 2, BIT = 4, ALL = 7, LOC = 8, CPLX = 16 };

typedef struct {
    MPI_Datatype t;
    mf_dtype_t dt;
    int ops;
} type_map_t;

/* Predefined types the AgLUs reduce, with the op classes MPICH 4.0 accepts
 * for each (probed: MPI_BYTE bitwise only, C_BOOL logical only, floating
 * types no bitwise).  MPICH also accepts logical ops on floating types
 * but aborts in them (opland.c assertion), so those are left to MPICH.  Sizes of the C types are those of x86-64 / LP64;
 * Fortran INTEGER / REAL are checked against their MPI size below. */
static const type_map_t reduce_types[] = {
    {MPI_CHAR, MF_DT_INT8, ALL},          {MPI_SIGNED_CHAR, MF_DT_INT8, ALL},
    {MPI_UNSIGNED_CHAR, MF_DT_UINT8, ALL}, {MPI_BYTE, MF_DT_UINT8, BIT},
    {MPI_C_BOOL, MF_DT_UINT8, LOGIC},     {MPI_SHORT, MF_DT_INT16, ALL},
    {MPI_UNSIGNED_SHORT, MF_DT_UINT16, ALL}, {MPI_INT, MF_DT_INT32, ALL},
    {MPI_UNSIGNED, MF_DT_UINT32, ALL},    {MPI_LONG, MF_DT_INT64, ALL},
    {MPI_UNSIGNED_LONG, MF_DT_UINT64, ALL}, {MPI_LONG_LONG, MF_DT_INT64, ALL},
    {MPI_UNSIGNED_LONG_LONG, MF_DT_UINT64, ALL},
    {MPI_INT8_T, MF_DT_INT8, ALL},        {MPI_INT16_T, MF_DT_INT16, ALL},
    {MPI_INT32_T, MF_DT_INT32, ALL},      {MPI_INT64_T, MF_DT_INT64, ALL},
    {MPI_UINT8_T, MF_DT_UINT8, ALL},      {MPI_UINT16_T, MF_DT_UINT16, ALL},
    {MPI_UINT32_T, MF_DT_UINT32, ALL},    {MPI_UINT64_T, MF_DT_UINT64, ALL},
    {MPI_AINT, MF_DT_INT64, ALL},         {MPI_OFFSET, MF_DT_INT64, ALL},
    {MPI_COUNT, MF_DT_INT64, ALL},
    {MPI_FLOAT, MF_DT_FLOAT, ARITH}, {MPI_DOUBLE, MF_DT_DOUBLE, ARITH},
    {MPI_INTEGER, MF_DT_INT32, ALL},      {MPI_INTEGER1, MF_DT_INT8, ALL},
    {MPI_INTEGER2, MF_DT_INT16, ALL},     {MPI_INTEGER4, MF_DT_INT32, ALL},
    {MPI_INTEGER8, MF_DT_INT64, ALL},
    {MPI_REAL, MF_DT_FLOAT, ARITH}, {MPI_REAL4, MF_DT_FLOAT, ARITH},
    {MPI_REAL8, MF_DT_DOUBLE, ARITH},
    {MPI_DOUBLE_PRECISION, MF_DT_DOUBLE, ARITH},
    /* MINLOC/MAXLOC pairs, moved as their C struct (the lane, wire.h) */
    {MPI_FLOAT_INT, MF_DT_FLOAT_INT, LOC},   {MPI_DOUBLE_INT, MF_DT_DOUBLE_INT, LOC},
    {MPI_LONG_INT, MF_DT_LONG_INT, LOC},     {MPI_2INT, MF_DT_2INT, LOC},
    {MPI_SHORT_INT, MF_DT_SHORT_INT, LOC},   {MPI_2INTEGER, MF_DT_2INT, LOC},
    /* complex: (re, im) as two lanes; SUM adds the lanes, PROD is CPROD */
    {MPI_C_FLOAT_COMPLEX, MF_DT_FLOAT, CPLX}, {MPI_C_DOUBLE_COMPLEX, MF_DT_DOUBLE, CPLX},
    {MPI_COMPLEX, MF_DT_FLOAT, CPLX},         {MPI_DOUBLE_COMPLEX, MF_DT_DOUBLE, CPLX},
    {MPI_COMPLEX8, MF_DT_FLOAT, CPLX},        {MPI_COMPLEX16, MF_DT_DOUBLE, CPLX},
};

static int is_predefined(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    if (t == MPI_DATATYPE_NULL)
        return 0;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    return combiner == MPI_COMBINER_NAMED;
}

/* Any type moves: a non-contiguous or derived one by its type map
 * (select/dtpack.h).  Only a missing type or one that moves nothing is
 * refused. */
mf_fb_reason_t mf_select_move_type(MPI_Datatype t, int *size)
{
    if (t == MPI_DATATYPE_NULL)
        return MF_FB_DATATYPE;
    if (PMPI_Type_size(t, size) != MPI_SUCCESS || *size <= 0)
        return MF_FB_DATATYPE;
    return MF_FB_NONE;
}

static const struct {
    MPI_Op op;
    mf_op_t mop;
    int cls;
} op_map[] = {
    {MPI_SUM, MF_OP_SUM, ARITH | CPLX}, {MPI_PROD, MF_OP_PROD, ARITH | CPLX}, {MPI_MIN, MF_OP_MIN, ARITH},
    {MPI_MAX, MF_OP_MAX, ARITH},   {MPI_LAND, MF_OP_LAND, LOGIC}, {MPI_LOR, MF_OP_LOR, LOGIC},
    {MPI_LXOR, MF_OP_LXOR, LOGIC}, {MPI_BAND, MF_OP_BAND, BIT},   {MPI_BOR, MF_OP_BOR, BIT},
    {MPI_BXOR, MF_OP_BXOR, BIT},
    {MPI_MINLOC, MF_OP_MINLOC, LOC}, {MPI_MAXLOC, MF_OP_MAXLOC, LOC},
};

static int op_index(MPI_Op op)
{
    for (size_t i = 0; i < sizeof op_map / sizeof op_map[0]; i++)
        if (op_map[i].op == op)
            return (int)i;
    return -1;
}

mf_fb_reason_t mf_select_op_known(MPI_Op op)
{
    return op_index(op) < 0 ? MF_FB_OP : MF_FB_NONE;
}

/* The type's elements are the AgLU's lanes: plain types by size; a complex
 * number is two lanes; a pair
 * (size 12 for MPI_DOUBLE_INT) by its extent, which must be the lane's C
 * struct layout (wire.h) -- so it is on LP64 with MPICH. */
static int lane_fits(MPI_Datatype t, mf_dtype_t dt, int cls, size_t size)
{
    if (cls == CPLX) /* (re, im) */
        return size == 2 * mf_dtype_size(dt);
    if (!mf_dtype_is_pair(dt))
        return size == mf_dtype_size(dt);
    MPI_Aint lb = 0, extent = 0;
    unsigned vb, io;
    mf_pair_layout(dt, &vb, &io);
    return PMPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
           (size_t)extent == mf_dtype_size(dt) && size == vb + 4;
}

/* Predefined ops are defined on predefined types only (MPI-4.0 sec.
 * 6.9.2; MPICH rejects MPI_SUM on a derived type): a derived type falls
 * back, and MPICH reports the error as it would without the plugin. */
mf_fb_reason_t mf_select_reduce(MPI_Datatype t, MPI_Op op, mf_dtype_t *dt, mf_op_t *mop,
                                int *size)
{
    mf_fb_reason_t r = mf_select_move_type(t, size);
    if (r)
        return r;
    if (!is_predefined(t))
        return MF_FB_DERIVED;
    const type_map_t *m = NULL;
    for (size_t i = 0; i < sizeof reduce_types / sizeof reduce_types[0]; i++)
        if (reduce_types[i].t == t)
            m = &reduce_types[i];
    if (!m || !lane_fits(t, m->dt, m->ops, (size_t)*size))
        return MF_FB_DATATYPE;
    int k = op_index(op);
    if (k < 0 || !(m->ops & op_map[k].cls) || !mf_op_valid_for(op_map[k].mop, m->dt))
        return MF_FB_OP;
    *dt = m->dt;
    *mop = m->ops == CPLX && op_map[k].mop == MF_OP_PROD ? MF_OP_CPROD : op_map[k].mop;
    return MF_FB_NONE;
}
