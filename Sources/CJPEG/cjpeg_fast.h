#ifndef CJPEG_FAST_H
#define CJPEG_FAST_H

#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>

#include "cjpeg.h"

/// What the reduced-size decoder ended with.
typedef enum {
    FAST_DONE = 0,
    /// Not a file it takes, or data it cannot vouch for: libjpeg-turbo decodes it instead and
    /// reports what is wrong.
    FAST_DECLINED = 1,
    FAST_CANCELLED = 2,
} fast_status;

/// Decodes a Huffman-coded JPEG, baseline with one scan or progressive, at 1/8 of its size
/// (the scale `cinfo` asks for; it declines any other) into `pixels` (RGB or grey, rows of `stride`
/// bytes, the size libjpeg computed for `cinfo`). `cinfo` has read the header up to the first
/// scan, whose coded data (and, for a progressive file, the rest of the file after it)
/// starts at `data` and runs for at most `length` bytes. Its own buffers stay under
/// `max_memory` bytes (a progressive file's coefficients are kept until its last scan; it
/// declines a file that would need more). Writes nothing outside `pixels`; on
/// FAST_DECLINED the caller decodes the file with libjpeg-turbo from the same `cinfo`.
fast_status cjpeg_fast_decode(struct jpeg_decompress_struct *cinfo, const unsigned char *data, size_t length,
                              unsigned char *pixels, size_t stride, size_t max_memory, cjpeg_monitor monitor,
                              void *context);

#endif
