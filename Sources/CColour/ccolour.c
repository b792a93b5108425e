#include "ccolour.h"

#include <lcms2.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

// A matrix/TRC profile's conversion is done here the way Little CMS does it for 8-bit RGB (its
// `OptimizeMatrixShaper`, cmsopt.c): each channel through its curve into 1.14 fixed point, the
// 3x3 matrix from the profile's colorants to sRGB's in 1.14, a clip to 0...1, then sRGB's
// inverse curve from a 16,385-entry table. The tables are made the same way, so the bytes are
// Little CMS's; what Little CMS adds is per-pixel overhead (its formatters, a call per
// pixel), which this avoids. Other RGB profiles (lookup tables) go through a Little CMS
// transform.

/// 1.0 in 1.14 fixed point.
#define ONE 16384

typedef struct {
    /// Set for a profile that is not matrix/TRC: the whole conversion is Little CMS's.
    cmsHTRANSFORM lcms;
    /// The source curves, 8-bit code to linear light in 1.14.
    int32_t shaper[3][256];
    /// Source RGB to linear sRGB, row by row, in 1.14.
    int32_t matrix[9];
    /// Every pixel comes out as it went in.
    int identity;
} transform;

/// sRGB's inverse curve, linear light in 1.14 to 8-bit code: the same for every source.
static uint8_t encode[ONE + 1];
static int32_t srgb_ready;
static double xyz_to_srgb[9];
static pthread_once_t srgb_once = PTHREAD_ONCE_INIT;

static int32_t to_fixed(double value) { return (int32_t)floor(value * ONE + 0.5); }

/// Linear light in 1.14, clipped to 0...1, as sRGB's 8-bit code.
static inline uint8_t encoded(int32_t linear) { return encode[linear < 0 ? 0 : linear > ONE ? ONE : linear]; }

/// The profile's colorants as the columns of an RGB to XYZ (D50) matrix.
static int read_colorants(cmsHPROFILE profile, double matrix[9]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int column = 0; column < 3; column++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[column]);
        if (!xyz) return 0;
        matrix[column] = xyz->X;
        matrix[3 + column] = xyz->Y;
        matrix[6 + column] = xyz->Z;
    }
    return 1;
}

static int invert(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (fabs(det) < 1e-9) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

/// Little CMS's sRGB profile read once: its matrix inverted and its curve inverted into
/// `encode`, each entry rounded to 16 bits and then to 8, as Little CMS rounds for 8-bit output.
static void make_srgb(void) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (!srgb) return;
    double colorants[9];
    const cmsToneCurve *curve = cmsReadTag(srgb, cmsSigRedTRCTag);
    cmsToneCurve *inverse = curve ? cmsReverseToneCurve(curve) : NULL;
    if (inverse && read_colorants(srgb, colorants) && invert(colorants, xyz_to_srgb)) {
        for (int i = 0; i <= ONE; i++) {
            double value = cmsEvalToneCurveFloat(inverse, (cmsFloat32Number)(i / (double)ONE));
            value = value < 0 ? 0 : value > 1 ? 1 : value;
            uint32_t word = (uint32_t)floor(value * 65535.0 + 0.5);
            encode[i] = (uint8_t)(((word * 65281u + 8388608u) >> 24) & 0xFF);
        }
        srgb_ready = 1;
    }
    if (inverse) cmsFreeToneCurve(inverse);
    cmsCloseProfile(srgb);
}

/// Fills in the fixed-point conversion of a matrix/TRC `source`; 0 when it is not one this
/// does (a lookup-table profile, a curve past the 1.14 range).
static int make_matrix_shaper(cmsHPROFILE source, transform *out) {
    if (!cmsIsMatrixShaper(source) || cmsIsCLUT(source, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT) ||
        cmsGetPCS(source) != cmsSigXYZData) {
        return 0;
    }
    pthread_once(&srgb_once, make_srgb);
    double colorants[9];
    if (!srgb_ready || !read_colorants(source, colorants)) return 0;
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int channel = 0; channel < 3; channel++) {
        const cmsToneCurve *curve = cmsReadTag(source, curves[channel]);
        if (!curve) return 0;
        for (int code = 0; code < 256; code++) {
            double value = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(code / 255.0));
            if (!(value > -2 && value < 2)) return 0;
            out->shaper[channel][code] = to_fixed(value);
        }
    }
    int32_t largest[3] = {0, 0, 0};
    for (int channel = 0; channel < 3; channel++) {
        for (int code = 0; code < 256; code++) {
            int32_t magnitude = abs(out->shaper[channel][code]);
            if (magnitude > largest[channel]) largest[channel] = magnitude;
        }
    }
    for (int row = 0; row < 3; row++) {
        // A row's sum must fit 32 bits for every pixel (a wide gamut's matrix, a hostile
        // profile); Little CMS takes the others.
        double bound = ONE / 2;
        for (int column = 0; column < 3; column++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += xyz_to_srgb[row * 3 + k] * colorants[k * 3 + column];
            if (!(fabs(sum) < 8)) return 0;
            out->matrix[row * 3 + column] = to_fixed(sum);
            bound += fabs((double)out->matrix[row * 3 + column]) * largest[column];
        }
        if (bound >= INT32_MAX) return 0;
    }
    int identity = out->matrix[1] == 0 && out->matrix[2] == 0 && out->matrix[3] == 0 && out->matrix[5] == 0 &&
                   out->matrix[6] == 0 && out->matrix[7] == 0;
    for (int channel = 0; identity && channel < 3; channel++) {
        for (int code = 0; identity && code < 256; code++) {
            identity = encoded((out->matrix[channel * 4] * out->shaper[channel][code] + ONE / 2) >> 14) == code;
        }
    }
    out->identity = identity;
    return 1;
}

/// The transform from `profile` to sRGB: the fixed-point one where `fast` and the profile is
/// matrix/TRC, otherwise Little CMS's.
static transform *make(const void *profile, size_t length, int fast) {
    if (!profile || length == 0 || length > 0xFFFFFFFFu) return NULL;
    cmsHPROFILE source = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    if (!source) return NULL;
    transform *made = NULL;
    if (cmsGetColorSpace(source) == cmsSigRgbData && (made = calloc(1, sizeof(*made)))) {
        if (!fast || !make_matrix_shaper(source, made)) {
            cmsHPROFILE srgb = cmsCreate_sRGBProfile();
            // No one-pixel cache: the transform is shared between threads.
            made->lcms = srgb ? cmsCreateTransform(source, TYPE_RGB_8, srgb, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                                   cmsFLAGS_NOCACHE)
                              : NULL;
            if (srgb) cmsCloseProfile(srgb);
            if (!made->lcms) {
                free(made);
                made = NULL;
            }
        }
    }
    cmsCloseProfile(source);
    return made;
}

void *ccolour_rgb_to_srgb(const void *profile, size_t length) { return make(profile, length, 1); }

void *ccolour_lcms_rgb_to_srgb(const void *profile, size_t length) { return make(profile, length, 0); }

int ccolour_is_identity(const void *opaque) { return opaque && ((const transform *)opaque)->identity; }

int ccolour_is_little_cms(const void *opaque) { return opaque && ((const transform *)opaque)->lcms != NULL; }

/// One row through the fixed-point matrix/TRC conversion.
static void matrix_shaper_row(const transform *restrict t, const unsigned char *restrict in, unsigned char *restrict out,
                              int width) {
    const int32_t *m = t->matrix;
    for (int x = 0; x < width; x++, in += 3, out += 3) {
        int32_t r = t->shaper[0][in[0]], g = t->shaper[1][in[1]], b = t->shaper[2][in[2]];
        out[0] = encoded((m[0] * r + m[1] * g + m[2] * b + ONE / 2) >> 14);
        out[1] = encoded((m[3] * r + m[4] * g + m[5] * b + ONE / 2) >> 14);
        out[2] = encoded((m[6] * r + m[7] * g + m[8] * b + ONE / 2) >> 14);
    }
}

void ccolour_apply(void *opaque, const unsigned char *in, size_t in_stride, unsigned char *out, size_t out_stride,
                   int width, int height) {
    const transform *t = opaque;
    if (t->lcms) {
        cmsDoTransformLineStride(t->lcms, in, out, (cmsUInt32Number)width, (cmsUInt32Number)height,
                                 (cmsUInt32Number)in_stride, (cmsUInt32Number)out_stride, 0, 0);
        return;
    }
    for (int y = 0; y < height; y++) matrix_shaper_row(t, in + (size_t)y * in_stride, out + (size_t)y * out_stride, width);
}

void ccolour_free(void *opaque) {
    transform *t = opaque;
    if (!t) return;
    if (t->lcms) cmsDeleteTransform(t->lcms);
    free(t);
}
