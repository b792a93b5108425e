#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

#include <malloc.h>
#include <stdlib.h>
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

/// Thumbnail of an upright image already in memory (no shrink-on-load, no autorotation): exactly
/// width x height, stretched, or filled and cropped around the centre when `crop` is set.
/// With `to_srgb` unset, the pixels are taken as sRGB already (an image this shim made).
static inline int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int crop, int to_srgb) {
    if (!to_srgb) {
        return vips_thumbnail_image(in, out, width, "height", height,
            "size", crop ? VIPS_SIZE_BOTH : VIPS_SIZE_FORCE,
            "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "no_rotate", TRUE, NULL);
    }
    return vips_thumbnail_image(in, out, width, "height", height,
        "size", crop ? VIPS_SIZE_BOTH : VIPS_SIZE_FORCE,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "export_profile", "srgb", "no_rotate", TRUE, NULL);
}

/// A HEIF file's embedded thumbnail, lazily, as libheif turns it (libvips gives the primary
/// image when there is no thumbnail: compare the sizes).
static inline VipsImage *cvips_heif_thumbnail(const char *path) {
    VipsImage *out = NULL;
    if (vips_heifload(path, &out, "thumbnail", TRUE, "access", VIPS_ACCESS_SEQUENTIAL, NULL)) return NULL;
    return out;
}

/// Rotates by a multiple of 90 degrees.
static inline int cvips_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

static void cvips_free_pixels(VipsImage *image, void *data) {
    (void)image;
    free(data);
}

/// Wraps pixels malloc'ed elsewhere (8-bit, `bands` interleaved channels) without copying them;
/// the image owns them from here on and frees them when it closes.
static inline VipsImage *cvips_image_take_memory(void *data, size_t size, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        free(data);
        return NULL;
    }
    image->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    g_signal_connect(image, "postclose", G_CALLBACK(cvips_free_pixels), data);
    return image;
}

/// A rectangle of an image.
static inline int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/// Shrinks by whole factors with a box filter: fast, for results that may be larger than asked.
static inline int cvips_shrink(VipsImage *in, VipsImage **out, double horizontal, double vertical) {
    return vips_shrink(in, out, horizontal, vertical, NULL);
}

/// Converts to sRGB through the ICC profile given (the one the file embeds), libvips' default intent.
static inline int cvips_icc_to_srgb(VipsImage *in, VipsImage **out, const void *profile, size_t length) {
    VipsImage *tagged = NULL;
    if (vips_copy(in, &tagged, NULL)) return -1;
    vips_image_set_blob_copy(tagged, VIPS_META_ICC_NAME, profile, length);
    int status = vips_icc_transform(tagged, out, "srgb", "embedded", TRUE, NULL);
    g_object_unref(tagged);
    return status;
}

/// Converts to sRGB through the image's own embedded ICC profile (a test oracle).
static inline int cvips_icc_transform_embedded(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, NULL);
}

/// Called with the fraction done; a nonzero return stops the computation.
typedef int (*cvips_monitor_function)(void *context, double fraction);

typedef struct {
    cvips_monitor_function function;
    void *context;
    int killed;
} cvips_monitor;

static void cvips_on_eval(VipsImage *image, VipsProgress *progress, void *data) {
    cvips_monitor *monitor = (cvips_monitor *)data;
    if (!monitor->killed && monitor->function(monitor->context, progress->percent / 100.0)) {
        monitor->killed = 1;
        vips_image_set_kill(image, TRUE);
    }
}

/// Reports the evaluation of `image` to `monitor` and stops it when the monitor says so.
/// Returns the handler to pass to `cvips_unwatch` once the computation is over.
static inline unsigned long cvips_watch(VipsImage *image, cvips_monitor *monitor) {
    vips_image_set_progress(image, TRUE);
    return g_signal_connect(image, "eval", G_CALLBACK(cvips_on_eval), monitor);
}

static inline void cvips_unwatch(VipsImage *image, unsigned long handler) {
    g_signal_handler_disconnect(image, handler);
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

/// Makes glibc map every allocation of `threshold` bytes or more, and unmap it on free.
static inline void cvips_map_large_blocks(int threshold) {
    mallopt(M_MMAP_THRESHOLD, threshold);
}

static inline void cvips_unref(VipsImage *image) {
    g_object_unref(image);
}

static inline void cvips_free(void *pointer) {
    g_free(pointer);
}

#endif
