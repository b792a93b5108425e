#ifndef CDIRECTIO_H
#define CDIRECTIO_H

// System calls Swift's Glibc module does not show: O_DIRECT is a GNU extension of fcntl.h.

/// Turns direct I/O on or off for an open file: with it on, writes go from the caller's buffer
/// to the disk without passing through the page cache, and need buffers, lengths and offsets
/// aligned to the disk's block size. Returns 0, or -1 with errno set (EINVAL where the file
/// system has no direct I/O, as tmpfs; ENOTSUP on systems without it).
int cdirectio_set(int fd, int on);

#endif
