/*
 * One host port of a streaming-queue FPGA board (XDMA / QDMA kind): an H2C
 * character device the host writes packets to and a C2H one it reads them
 * from, named <prefix>_h2c_<q> and <prefix>_c2h_<q>.  Each queue is used as
 * a byte stream (doc/board.md); the board emulator (mpifpga-fpga-emu)
 * presents the same two nodes as FIFOs.
 */
#ifndef MF_BOARD_QUEUE_H
#define MF_BOARD_QUEUE_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    int h2c, c2h;            /* open descriptors, -1 if not */
    char h2c_path[300], c2h_path[300];
} mf_bq_t;

/* Called with bytes read from C2H while a write waits for room: the board
 * may need its results taken before it takes more (0, or -1 with err). */
typedef int (*mf_bq_sink_fn)(void *ctx, const unsigned char *buf, size_t n, char *err,
                             size_t len);

/* Open queue q under prefix.  0, or -1 with err (no such node; a FIFO
 * with no emulator reading it). */
int mf_bq_open(mf_bq_t *q, const char *prefix, int queue, char *err, size_t len);

/* Write all n bytes to H2C; while H2C is full, C2H bytes go to sink.
 * 0, or -1 with err (the board closed the queue, I/O error). */
int mf_bq_write(mf_bq_t *q, const void *buf, size_t n, mf_bq_sink_fn sink, void *ctx,
                char *err, size_t len);

/* Read what C2H has, waiting up to timeout_ms for the first byte (< 0:
 * forever).  The byte count, 0 if none came in time, -1 with err (end of
 * stream: the board or its emulator went away; I/O error). */
ssize_t mf_bq_read(mf_bq_t *q, void *buf, size_t cap, int timeout_ms, char *err, size_t len);

void mf_bq_close(mf_bq_t *q);

#endif
