#ifndef CEDIT_H
#define CEDIT_H

#include <CVips.h>

// Lightbox's per-pixel edit filters fused into one libvips stage.
//
// A recipe's point filters (tone tables, colour matrices, vibrance, highlights and shadows,
// vignette) each made their own libvips operations, several of them in float, each a pass
// over every value of the image. Here consecutive point filters become one libvips image whose pixels this file
// computes, strip by strip on libvips' threads, from 8-bit sRGB to 8-bit sRGB. Each stage
// computes in float what the libvips operations it replaces computed, and rounds and clips
// to 8 bits after itself as they did, so results agree with one libvips operation per filter.

/// What a stage does to each pixel (r, g, b, 0...255).
typedef enum {
    /// Each band through its own table: `table[value * 3 + band]`.
    CEDIT_TABLE = 0,
    /// `out[i] = sum(matrix[i * 3 + j] * in[j])`.
    CEDIT_MATRIX = 1,
    /// Saturation scaled by `1 + amount * (1 - (max - min) / 255)`, about the pixel's luma.
    CEDIT_VIBRANCE = 2,
    /// Every band times `gains[L]`, L the pixel's luma rounded to 0...255.
    CEDIT_LUMA_GAIN = 3,
    /// Every band times `1 - amount * r²`, r the distance from the centre over the half-diagonal.
    CEDIT_VIGNETTE = 4,
} cedit_kind;

typedef struct {
    cedit_kind kind;
    unsigned char table[256 * 3];
    float matrix[9];
    float gains[256];
    double amount;
} cedit_stage;

/// `in` (uchar, three bands) with `count` stages applied in order, lazily. The stages are
/// copied. Returns 0, or -1 with libvips' error set.
int cedit_point(VipsImage *in, VipsImage **out, const cedit_stage *stages, int count);

/// `in` (uchar, three bands) rotated by `degrees` clockwise about its centre with bilinear
/// interpolation, and the centred `width` x `height` rectangle of the result kept, lazily: the
/// straighten filter of an interactive preview. libvips' `vips_similarity` with its bilinear
/// interpolator makes a function call and float weights per pixel, too slow for a slider;
/// here the weights are fixed-point and the rectangle is made
/// directly, without the canvas of the whole rotated image. Full-size renders keep
/// `vips_similarity`'s bicubic. Returns 0, or -1 with libvips' error set.
int cedit_straighten(VipsImage *in, VipsImage **out, double degrees, int width, int height);

#endif
