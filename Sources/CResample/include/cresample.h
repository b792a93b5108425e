#ifndef CRESAMPLE_H
#define CRESAMPLE_H

#include <stddef.h>

// Lightbox's downsizing resampler: a Lanczos-3 filter, the kernel libvips' `vips_resize` uses
// by default, on 8-bit pixels in memory, one output row at a time.
//
// libvips 8.14's reduction is general C, one band and one tap at a time, through its region
// pipeline: a 12 MP photo decoded at half size took about as long to reach 1024 px on one
// thread as its decode. Here each row is filtered horizontally with 16-bit
// fixed-point SIMD (two taps of a pixel's three bands per multiply-add: one pixel at a time
// with SSSE3, two with AVX2) into a ring of as many rows as the vertical filter has taps, and
// each output row is a weighted sum of those rows, 16 values per SSE2 step or 32 per AVX2
// step. Every level computes the same integer sums, so all give the same values. Other
// processors, and other band counts, take plain C loops. Edges repeat the outermost pixel, as
// libvips' do.

/// The instruction sets `cresample_lanczos3_at` can be held to.
enum {
    CRESAMPLE_SCALAR = 0,
    /// SSSE3 rows (three bands), SSE2 columns.
    CRESAMPLE_SSE = 1,
    /// AVX2 rows (three bands) and columns.
    CRESAMPLE_AVX2 = 2,
};

/// The highest level this processor runs.
int cresample_level(void);

/// Downsizes `in` (`in_width` x `in_height` pixels of `bands` interleaved 8-bit values, rows
/// `in_stride` bytes apart) to `out` (`out_width` x `out_height`, rows `out_stride` bytes
/// apart). Each output pixel is centred on the input area it covers; the filter is as wide as
/// three output pixels on each side. Both sizes must be at least 1 and at most the input's.
/// Returns 0, or -1 for bad sizes or when memory runs out.
int cresample_lanczos3(const unsigned char *in, int in_width, int in_height, size_t in_stride, int bands,
                       unsigned char *out, int out_width, int out_height, size_t out_stride);

/// The same, using no instructions above `level` (for tests: every level gives the same values).
int cresample_lanczos3_at(const unsigned char *in, int in_width, int in_height, size_t in_stride, int bands,
                          unsigned char *out, int out_width, int out_height, size_t out_stride, int level);

#endif
