/*
 * Shared payload buffers: a rank and an engine on the same host share one
 * memfd per rank, so a call's payload need not be copied through transport
 * messages (MF_EM_SHMBUF, doc/protocol.md).  The rank creates the buffer
 * and keeps its descriptor open; the engine maps it through
 * /proc/<pid>/fd/<fd>.  The modeled DMA then reads the send bytes from it
 * and writes the result into it, as the board's DMA does on host memory.
 */
#ifndef MF_SHMBUF_H
#define MF_SHMBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *base; /* NULL: none */
    uint64_t size;
    int fd;        /* creator's descriptor, -1 when attached or none */
} mf_shmbuf_t;

#define MF_SHMBUF_NONE ((mf_shmbuf_t){.base = NULL, .size = 0, .fd = -1})

/* Rank side: a new buffer of `size` bytes with its memory committed now
 * (so running out shows here, not as SIGBUS later).  -1 with err. */
int mf_shmbuf_create(mf_shmbuf_t *b, uint64_t size, char *err, size_t len);

/* Engine side: map the buffer that process `pid` holds as descriptor `fd`,
 * which must be at least `size` bytes.  -1 with err. */
int mf_shmbuf_attach(mf_shmbuf_t *b, int pid, int fd, uint64_t size, char *err, size_t len);

/* Unmap (and close, on the creator's side); b becomes MF_SHMBUF_NONE. */
void mf_shmbuf_release(mf_shmbuf_t *b);

#endif
