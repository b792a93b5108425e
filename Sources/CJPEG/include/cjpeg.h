#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>

// A JPEG decoder for the common case of camera photos: baseline or progressive, YCbCr, RGB or
// grey, decoded from memory with libjpeg-turbo's DCT scaling. libvips 8.14 reads JPEG through a
// 4 KB buffer, which keeps libjpeg-turbo off its fast Huffman path most of the time; from one
// buffer holding the whole file it decodes faster (docs/BENCHMARKS.md). It also lets a caller
// follow progress and stop a decode halfway, between two rows of blocks. At 1/8 scale,
// Lightbox's own decoder (cjpeg_fast.c) takes over: it skips what such a small image does not
// need, which libjpeg-turbo decodes all the same.
//
// Everything libjpeg can longjmp out of stays in this C file: Swift never sees a longjmp.

/// What a decode ended with.
typedef enum {
    CJPEG_OK = 0,
    /// Not a JPEG this decoder takes (CMYK, YCCK, 12-bit, arithmetic coding): use libvips.
    CJPEG_UNSUPPORTED = 1,
    /// The data is damaged; the message says how.
    CJPEG_CORRUPT = 2,
    /// The file ends before the image does.
    CJPEG_TRUNCATED = 3,
    /// The monitor asked to stop.
    CJPEG_CANCELLED = 4,
    /// The image would need more memory than the caller allows.
    CJPEG_TOO_LARGE = 5,
} cjpeg_status;

/// The header of a JPEG: its stored size and colour components.
typedef struct {
    int width;
    int height;
    int components;
    int progressive;
    int supported;
    /// The bytes libjpeg keeps for every coefficient of the image while it decodes a
    /// progressive (multi-scan) file; a baseline file needs one row of blocks.
    size_t coefficient_bytes;
} cjpeg_header;

/// Called between rows of blocks with the fraction done (0...1); a nonzero return stops the decode.
typedef int (*cjpeg_monitor)(void *context, double fraction);

/// A decoded image: `bands` interleaved 8-bit channels, rows of `width * bands` bytes.
/// `icc` is the embedded ICC profile, or NULL. Free both with `cjpeg_free`.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    int bands;
    unsigned char *icc;
    size_t icc_length;
    /// 1 when Lightbox's own 1/8 decoder made the pixels, 0 when libjpeg-turbo did.
    int own_decoder;
} cjpeg_image;

/// Reads the header. Returns CJPEG_OK, CJPEG_CORRUPT or CJPEG_TRUNCATED.
cjpeg_status cjpeg_read_header(const unsigned char *data, size_t length, cjpeg_header *header,
                               char *message, size_t message_length);

/// Flags for `cjpeg_decode`.
enum {
    /// Decode with libjpeg-turbo even where Lightbox's own reduced-size decoder would take the
    /// file (tests and benchmarks compare the two).
    CJPEG_LIBJPEG_ONLY = 1,
};

/// Allocates the decoded pixels: a block `free` can release (from `malloc`, or kept from an
/// earlier `malloc`). NULL: `malloc`.
typedef void *(*cjpeg_allocate)(size_t size);

/// Decodes at `scale_eighths`/8 of the stored size (1, 2, 4 or 8 are fastest). At 1/8, a
/// Huffman-coded file, baseline or progressive, is decoded by Lightbox's own decoder
/// (cjpeg_fast.c) unless `flags` has CJPEG_LIBJPEG_ONLY; anything it declines goes to
/// libjpeg-turbo. At most `max_pixels` output pixels, and `max_memory` bytes of the
/// decoder's own buffers (libjpeg keeps every coefficient of a progressive file). Progressive
/// files with more than `max_scans` scans are refused as corrupt. The pixels come from
/// `allocate`. On an error other than CJPEG_OK, `image` holds nothing to free.
cjpeg_status cjpeg_decode(const unsigned char *data, size_t length, int scale_eighths,
                          size_t max_pixels, size_t max_memory, int max_scans,
                          int flags, cjpeg_allocate allocate, cjpeg_monitor monitor, void *context,
                          cjpeg_image *image, char *message, size_t message_length);

/// For tests: decodes a progressive JPEG's scans with Lightbox's 1/8 decoder and compares every
/// coefficient it keeps (each block's DC, and the nine a subsampled block's halves are made
/// from) with libjpeg's `jpeg_read_coefficients`. Returns how many differ, or -1 where either
/// decoder fails or the file is not progressive; `compared` is how many were compared.
long cjpeg_check_progressive_coefficients(const unsigned char *data, size_t length, long *compared);

/// Encodes `height` rows of `width` pixels (`bands` 1, grey, or 3, RGB; rows `stride` bytes
/// apart) as a baseline JPEG at `quality` (1...100), the way libvips' `jpegsave` does with
/// `strip`, without optimized Huffman tables: standard tables scaled by the quality, 4:2:0
/// chroma under quality 90 and 4:4:4 from 90 up, a JFIF header and no other metadata. On
/// CJPEG_OK, `*out` holds `*out_length` bytes to release with `free`; otherwise nothing.
/// Returns CJPEG_UNSUPPORTED for a size or band count JPEG cannot hold, CJPEG_TOO_LARGE
/// when memory runs out.
cjpeg_status cjpeg_encode(const unsigned char *pixels, int width, int height, size_t stride, int bands, int quality,
                          unsigned char **out, size_t *out_length, char *message, size_t message_length);

/// Frees what `cjpeg_decode` allocated.
void cjpeg_free(cjpeg_image *image);

#endif
