#define _GNU_SOURCE
#include "cdirectio.h"

#include <errno.h>
#include <fcntl.h>

int cdirectio_set(int fd, int on) {
#ifdef O_DIRECT
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    flags = on ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
    return fcntl(fd, F_SETFL, flags);
#else
    (void)fd;
    if (!on) return 0;
    errno = ENOTSUP;
    return -1;
#endif
}
