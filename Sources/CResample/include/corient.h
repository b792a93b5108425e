#ifndef CORIENT_H
#define CORIENT_H

#include <stddef.h>

// An image turned upright by its EXIF orientation, in memory: pixels moved, nothing computed.
// libvips' `vips_autorot` does the same through its region pipeline, and the copy into memory
// after it hands the rows to worker threads the caller waits on (docs/BENCHMARKS.md, Images).

/// Writes `in` (`width` x `height` pixels of `bands` 8-bit values, 1 to 4; rows `in_stride`
/// bytes apart) shown as EXIF `orientation` (1 to 8) says into `out` (rows `out_stride` bytes
/// apart): `width` x `height` for 1 to 4, `height` x `width` for 5 to 8. 2 mirrors left to
/// right, 3 turns by 180 degrees, 4 mirrors top to bottom, 5 transposes, 6 turns 90 degrees
/// clockwise, 7 transverses, 8 turns 90 degrees anticlockwise. Returns 0, or -1 for bad
/// arguments.
int corient(const unsigned char *in, int width, int height, size_t in_stride, int bands, int orientation,
            unsigned char *out, size_t out_stride);

#endif
