#ifndef CCOLOUR_H
#define CCOLOUR_H

#include <stddef.h>

// Colour conversion of 8-bit RGB pixels to sRGB, with transforms made once per profile and
// kept by the caller.
//
// libvips' `vips_icc_transform` makes a new Little CMS transform for every image, which for a
// small thumbnail took about as long as decoding the photo. A matrix/TRC profile (every
// phone's and camera's RGB profile) is converted here in fixed point, to the same bytes as
// Little CMS's own 8-bit conversion, in about half its time, and made far faster (sRGB's
// inverse curve is made once and kept; docs/BENCHMARKS.md). Other RGB profiles go through a
// Little CMS transform. The intent is relative colorimetric without black point
// compensation, what `vips_icc_transform` does by default.

/// A transform from the RGB colour space `profile` (ICC bytes) describes to sRGB, 8-bit RGB in
/// and out, safe to use from several threads at once. NULL when Little CMS cannot read the
/// profile or it is not an RGB one (a grey or CMYK profile: libvips converts those).
void *ccolour_rgb_to_srgb(const void *profile, size_t length);

/// Converts `width` x `height` pixels, rows `in_stride` and `out_stride` bytes apart.
void ccolour_apply(void *transform, const unsigned char *in, size_t in_stride, unsigned char *out,
                   size_t out_stride, int width, int height);

/// Whether the transform leaves every pixel as it is (a profile that is sRGB to the last bit).
int ccolour_is_identity(const void *transform);

/// Whether the transform is Little CMS's (a lookup-table profile), not the fixed-point one.
int ccolour_is_little_cms(const void *transform);

/// Little CMS's own transform for `profile`, whatever it is: the reference the fixed-point
/// conversion is tested against.
void *ccolour_lcms_rgb_to_srgb(const void *profile, size_t length);

void ccolour_free(void *transform);

#endif
