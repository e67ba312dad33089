/*
 * Doorbells: a blocking wake-up beside a libfabric provider that has no
 * wait object (shm in libfabric 1.17).  Each endpoint owns a named FIFO
 * whose path is derived from its endpoint name, so a peer that knows the
 * name can find it without any extra exchange.  A sender rings the
 * receiver's FIFO (one byte, non-blocking) after each message; a waiting
 * receiver blocks in poll() on its own FIFO instead of sleeping between
 * polls.  A missed ring costs at most the caller's poll timeout: the
 * completion queue is always read after a wake-up or a timeout.
 */
#ifndef MF_TRANSPORT_DOORBELL_H
#define MF_TRANSPORT_DOORBELL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int fd;              /* own FIFO, read end (O_RDWR: never sees EOF) */
    char path[96];
    int *peer_fd;        /* by peer index (fi_addr_t of an AV table), -1 none */
    uint8_t *due;        /* by peer index: a ring is held back (mf_bell_flush) */
    size_t npeers;
} mf_bell_t;

/* Create this endpoint's FIFO (name: its libfabric endpoint name). */
int mf_bell_open(mf_bell_t *b, const void *name, size_t n);
void mf_bell_close(mf_bell_t *b);
/* Find peer `idx`'s FIFO from its name (best effort: no FIFO, no rings). */
void mf_bell_add_peer(mf_bell_t *b, uint64_t idx, const void *name, size_t n);
/* Ring peer idx (a peer that died is never signalled: see add_peer). */
void mf_bell_ring(mf_bell_t *b, uint64_t idx);
/* Remove the FIFO's name once every peer has opened it (they keep their
 * descriptors): nothing is left in /tmp if the process is killed later. */
void mf_bell_unlink(mf_bell_t *b);
/* Hold a ring back until mf_bell_flush: a burst of messages to one peer
 * wakes it once. */
void mf_bell_defer(mf_bell_t *b, uint64_t idx);
void mf_bell_flush(mf_bell_t *b);
/* Block until rung or timeout_ms passes; clears the rings. */
void mf_bell_wait(mf_bell_t *b, int timeout_ms);

#endif
