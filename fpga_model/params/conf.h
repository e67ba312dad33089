/*
 * Parameter files: `key = value  # comment` lines read through a table of
 * keys (type, range, help), the same way for every kind of parameter set
 * (the switch model's, params.h; the baseline hosts', host.h).  Built-in
 * sets are the .conf data files compiled in by conf2h.sh; a user file is
 * applied on top of the schema's base set.
 */
#ifndef MF_CONF_H
#define MF_CONF_H

#include <stddef.h>
#include <stdio.h>

typedef enum { MF_T_STR, MF_T_UINT, MF_T_U64, MF_T_DBL } mf_ptype_t;

enum {
    MF_F_MIN_OPEN = 1u << 0, /* value must be strictly greater than min */
    MF_F_MUL64 = 1u << 1,    /* multiple of 64 */
    MF_F_POW2 = 1u << 2,     /* power of two */
};

typedef struct {
    const char *key;
    mf_ptype_t type;
    size_t off;
    double min, max; /* inclusive unless MF_F_MIN_OPEN; unused for STR, U64 */
    unsigned flags;
    const char *help;
} mf_pdef_t;

typedef struct {
    const char *name;
    const char *text; /* the .conf file's text */
} mf_builtin_t;

/* One kind of parameter set.  Objects of the kind are plain structs whose
 * first field is `char name[64]`. */
typedef struct {
    const char *kind;              /* "parameter set", for messages */
    const mf_pdef_t *defs;
    size_t ndefs;
    const mf_builtin_t *builtins;  /* the first is the base of user files */
    size_t nbuiltins;
    size_t obj_size;
    /* relations between keys, after every key passed its range check */
    int (*check_relations)(const void *obj, char *err, size_t errlen);
} mf_conf_schema_t;

#define MF_CONF_NAME_LEN ((size_t)64)

/* Load the built-in set `name` (case-insensitive) or the file `name` applied
 * on top of the first built-in set; the result passes mf_conf_check.
 * 0, or -1 with a one-line message; obj is unchanged on error. */
int mf_conf_load(const mf_conf_schema_t *s, const char *name, void *obj, char *err,
                 size_t errlen);
/* One override: key and value, or value == NULL and key = "key=value". */
int mf_conf_set(const mf_conf_schema_t *s, void *obj, const char *key, const char *value,
                char *err, size_t errlen);
/* Every key's range, then the schema's relations. */
int mf_conf_check(const mf_conf_schema_t *s, const void *obj, char *err, size_t errlen);
/* Every key as `key = value  # help`. */
void mf_conf_print(const mf_conf_schema_t *s, const void *obj, FILE *out);
/* printf-style message into err; returns -1. */
int mf_conf_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
