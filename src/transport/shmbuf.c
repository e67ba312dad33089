/* Shared payload buffers (shmbuf.h). */
#define _GNU_SOURCE
#include "transport/shmbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int map(mf_shmbuf_t *b, int fd, uint64_t size, char *err, size_t len)
{
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, len, "cannot map the %llu-byte payload buffer: %s",
                 (unsigned long long)size, strerror(errno));
        return -1;
    }
    b->base = p;
    b->size = size;
    return 0;
}

int mf_shmbuf_create(mf_shmbuf_t *b, uint64_t size, char *err, size_t len)
{
    *b = MF_SHMBUF_NONE;
    int fd = memfd_create("mpifpga-payload", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, len, "memfd_create: %s", strerror(errno));
        return -1;
    }
    int rc = ftruncate(fd, (off_t)size) ? errno : posix_fallocate(fd, 0, (off_t)size);
    if (rc) {
        snprintf(err, len, "cannot reserve %llu bytes of shared memory: %s",
                 (unsigned long long)size, strerror(rc));
        goto fail;
    }
    if (map(b, fd, size, err, len))
        goto fail;
    b->fd = fd;
    return 0;
fail:
    close(fd);
    return -1;
}

int mf_shmbuf_attach(mf_shmbuf_t *b, int pid, int fd, uint64_t size, char *err, size_t len)
{
    char path[64];
    struct stat st;
    *b = MF_SHMBUF_NONE;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int mine = open(path, O_RDWR | O_CLOEXEC);
    if (mine < 0) {
        snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    if (fstat(mine, &st) || (uint64_t)st.st_size < size)
        snprintf(err, len, "%s is not a payload buffer of %llu bytes", path,
                 (unsigned long long)size);
    else
        rc = map(b, mine, size, err, len);
    close(mine); /* the mapping keeps the memory */
    return rc;
}

void mf_shmbuf_release(mf_shmbuf_t *b)
{
    if (b->base)
        munmap(b->base, (size_t)b->size);
    if (b->fd >= 0)
        close(b->fd);
    *b = MF_SHMBUF_NONE;
}
