#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

#include <vips/vips.h>

// Swift cannot call C variadic functions, so each libvips call Lightbox makes with
// optional arguments gets a fixed-signature wrapper here. Every wrapper returns
// libvips' own status (0 on success, -1 on error with the message in vips_error_buffer()).

/// Opens an image lazily (header only until pixels are asked for). Sequential access reads
/// the file once, top to bottom; random access allows rotations and crops in any order.
static inline VipsImage *cvips_image_new_from_file(const char *path, VipsFailOn fail_on, VipsAccess access) {
    return vips_image_new_from_file(path,
        "access", access,
        "fail_on", fail_on,
        NULL);
}

/// Shrink-on-load thumbnail of a file: autorotated unless `no_rotate` is set, and colour
/// converted to sRGB when `to_srgb` is set (an image already in sRGB without a profile needs
/// no transform). `crop` is VIPS_INTERESTING_NONE for fit, VIPS_INTERESTING_CENTRE for fill.
static inline int cvips_thumbnail(const char *path, VipsImage **out, int width, int height,
                                  VipsSize size, VipsInteresting crop, VipsFailOn fail_on, int to_srgb,
                                  int no_rotate) {
    if (!to_srgb) {
        return vips_thumbnail(path, out, width, "height", height, "size", size, "crop", crop,
            "fail_on", fail_on, "no_rotate", no_rotate, NULL);
    }
    return vips_thumbnail(path, out, width,
        "height", height,
        "size", size,
        "crop", crop,
        "export_profile", "srgb",
        "fail_on", fail_on,
        "no_rotate", no_rotate,
        NULL);
}

/// Rotates an image upright according to its orientation tag.
static inline int cvips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Writes JPEG to memory. `strip` drops metadata (thumbnails need none).
static inline int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len,
        "Q", quality,
        "strip", TRUE,
        "optimize_coding", TRUE,
        "interlace", FALSE,
        NULL);
}

/// Writes WebP to memory.
static inline int cvips_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_webpsave_buffer(in, buf, len,
        "Q", quality,
        "strip", TRUE,
        NULL);
}

/// Copies an image into memory, decoding every pixel (used to validate a file end to end).
static inline int cvips_decode_to_memory(VipsImage *in, double *average) {
    return vips_avg(in, average, NULL);
}

/// Pixel-wise absolute difference statistics between two images of the same size.
static inline int cvips_subtract_abs_avg(VipsImage *a, VipsImage *b, double *average) {
    VipsImage *diff = NULL;
    VipsImage *absd = NULL;
    int status = vips_subtract(a, b, &diff, NULL);
    if (status == 0) {
        status = vips_abs(diff, &absd, NULL);
    }
    if (status == 0) {
        status = vips_avg(absd, average, NULL);
    }
    if (absd) g_object_unref(absd);
    if (diff) g_object_unref(diff);
    return status;
}

/// Opens an encoded image held in memory.
static inline VipsImage *cvips_image_new_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// Thumbnail of an image already in memory (no shrink-on-load, no autorotation): exactly
/// width x height, stretched, or filled and cropped around the centre when `crop` is set.
/// With `to_srgb` unset, the pixels are taken as sRGB already (an image this shim made).
static inline int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int crop, int to_srgb) {
    if (!to_srgb) {
        return vips_thumbnail_image(in, out, width, "height", height,
            "size", crop ? VIPS_SIZE_BOTH : VIPS_SIZE_FORCE,
            "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
    }
    return vips_thumbnail_image(in, out, width, "height", height,
        "size", crop ? VIPS_SIZE_BOTH : VIPS_SIZE_FORCE,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "export_profile", "srgb", NULL);
}

/// Rotates by a multiple of 90 degrees.
static inline int cvips_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

static void cvips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Stops libvips printing warnings ("error in tile ...") on standard error: Lightbox reports
/// every failure itself, through the error buffer, with the file it concerns.
static inline void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO),
                      cvips_ignore_log, NULL);
}

static inline void cvips_unref(VipsImage *image) {
    g_object_unref(image);
}

static inline void cvips_free(void *pointer) {
    g_free(pointer);
}

#endif
