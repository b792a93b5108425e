#ifndef CVIPS_H
#define CVIPS_H

#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

// libvips is opened on first use, not at start: with its hundred libraries it was most of
// every process's start (docs/BENCHMARKS.md), which commands that never touch pixels paid
// too. Every
// libvips function Lightbox calls is reached through `cvips_functions`, filled by
// `cvips_open_library` (cvips.c); the names below are defined as those pointers, so the code
// calls libvips as it always did. `Vips.ensureCoreStarted` opens the library before anything
// else touches libvips. A function added to Lightbox's calls goes on this list: the link fails
// on any libvips symbol left out.
#define CVIPS_FUNCTIONS(X) \
    X(vips_abs) \
    X(vips_add) \
    X(vips_affine) \
    X(vips_area_unref) \
    X(vips_array_double_new) \
    X(vips_array_int_newv) \
    X(vips_autorot) \
    X(vips_avg) \
    X(vips_cache_set_max) \
    X(vips_operation_block_set) \
    X(vips_colourspace) \
    X(vips_conv) \
    X(vips_copy) \
    X(vips_error) \
    X(vips_error_buffer_copy) \
    X(vips_extract_area) \
    X(vips_flatten) \
    X(vips_flip) \
    X(vips_format_sizeof_unsafe) \
    X(vips_gaussblur) \
    X(vips_guess_prefix) \
    X(vips_heifload) \
    X(vips_icc_transform) \
    X(vips_image_copy_memory) \
    X(vips_image_generate) \
    X(vips_image_get_bands) \
    X(vips_image_get_blob) \
    X(vips_image_get_coding) \
    X(vips_image_get_fields) \
    X(vips_image_get_format) \
    X(vips_image_get_height) \
    X(vips_image_get_int) \
    X(vips_image_get_interpretation) \
    X(vips_image_get_string) \
    X(vips_image_get_typeof) \
    X(vips_image_get_width) \
    X(vips_image_new) \
    X(vips_image_new_from_buffer) \
    X(vips_image_new_from_file) \
    X(vips_image_new_from_memory) \
    X(vips_image_new_from_memory_copy) \
    X(vips_image_new_matrix_from_array) \
    X(vips_image_pio_input) \
    X(vips_image_pipelinev) \
    X(vips_image_remove) \
    X(vips_image_set_blob_copy) \
    X(vips_image_set_int) \
    X(vips_image_set_kill) \
    X(vips_image_set_progress) \
    X(vips_image_wio_input) \
    X(vips_image_write_to_file) \
    X(vips_image_write_to_memory) \
    X(vips_init) \
    X(vips_interpolate_new) \
    X(vips_jpegsave) \
    X(vips_jpegsave_buffer) \
    X(vips_linear) \
    X(vips_maplut) \
    X(vips_multiply) \
    X(vips_recomb) \
    X(vips_rect_intersectrect) \
    X(vips_rect_includespoint) \
    X(vips_rect_isempty) \
    X(vips_region_black) \
    X(vips_region_new) \
    X(vips_region_prepare) \
    X(vips_relational_const1) \
    X(vips_rot) \
    X(vips_shrink) \
    X(vips_subtract) \
    X(vips_thumbnail) \
    X(vips_thumbnail_image) \
    X(vips_version) \
    X(vips_webpsave_buffer)

struct cvips_functions {
#define CVIPS_FIELD(name) __typeof__(name) *name;
    CVIPS_FUNCTIONS(CVIPS_FIELD)
#undef CVIPS_FIELD
};

/// libvips' functions, once `cvips_open_library` has returned 1.
extern struct cvips_functions cvips_functions;

/// Opens libvips and finds each function Lightbox calls, once per process: 1, or 0 with the
/// reason in `message` (libvips missing, or one without a function Lightbox needs).
int cvips_open_library(char *message, size_t length);

/// 1 once `cvips_functions` is filled.
extern int cvips_library_open;

/// Whether libvips is open, for Swift (which cannot read the atomic flag itself).
static inline int cvips_is_open(void) { return __atomic_load_n(&cvips_library_open, __ATOMIC_ACQUIRE); }

/// Opens libvips for a call made before `Vips.ensureCoreStarted` (which reports a missing
/// libvips as an error): the process stops with the reason if it cannot.
void cvips_require_library(void);

/// The lock that keeps a failed libvips decode's error its own. libvips has one error buffer
/// for the process, and a failing loader often writes it from one of libvips' worker threads,
/// so a message cannot be told from another thread's by where it came from. Decodes that may
/// fail on bad input hold the lock shared (`cvips_decodes_share`); one that failed takes it
/// alone (`cvips_decodes_own`) and runs again, with no other such decode writing the buffer.
/// A waiting owner goes before new sharers, so a batch of good files cannot keep it out.
void cvips_decodes_share(void);
void cvips_decodes_own(void);
void cvips_decodes_release(void);

/// Every libvips call goes through here first: one load of a flag once libvips is open.
static inline void cvips_ready(void) {
    if (__builtin_expect(!__atomic_load_n(&cvips_library_open, __ATOMIC_ACQUIRE), 0)) cvips_require_library();
}

#ifndef CVIPS_TABLE_ITSELF
#define vips_abs (cvips_ready(), cvips_functions.vips_abs)
#define vips_add (cvips_ready(), cvips_functions.vips_add)
#define vips_affine (cvips_ready(), cvips_functions.vips_affine)
#define vips_area_unref (cvips_ready(), cvips_functions.vips_area_unref)
#define vips_array_double_new (cvips_ready(), cvips_functions.vips_array_double_new)
#define vips_array_int_newv (cvips_ready(), cvips_functions.vips_array_int_newv)
#define vips_autorot (cvips_ready(), cvips_functions.vips_autorot)
#define vips_avg (cvips_ready(), cvips_functions.vips_avg)
#define vips_operation_block_set (cvips_ready(), cvips_functions.vips_operation_block_set)
#define vips_cache_set_max (cvips_ready(), cvips_functions.vips_cache_set_max)
#define vips_colourspace (cvips_ready(), cvips_functions.vips_colourspace)
#define vips_conv (cvips_ready(), cvips_functions.vips_conv)
#define vips_copy (cvips_ready(), cvips_functions.vips_copy)
#define vips_error (cvips_ready(), cvips_functions.vips_error)
#define vips_error_buffer_copy (cvips_ready(), cvips_functions.vips_error_buffer_copy)
#define vips_extract_area (cvips_ready(), cvips_functions.vips_extract_area)
#define vips_flatten (cvips_ready(), cvips_functions.vips_flatten)
#define vips_flip (cvips_ready(), cvips_functions.vips_flip)
#define vips_format_sizeof_unsafe (cvips_ready(), cvips_functions.vips_format_sizeof_unsafe)
#define vips_gaussblur (cvips_ready(), cvips_functions.vips_gaussblur)
#define vips_guess_prefix (cvips_ready(), cvips_functions.vips_guess_prefix)
#define vips_heifload (cvips_ready(), cvips_functions.vips_heifload)
#define vips_icc_transform (cvips_ready(), cvips_functions.vips_icc_transform)
#define vips_image_copy_memory (cvips_ready(), cvips_functions.vips_image_copy_memory)
#define vips_image_generate (cvips_ready(), cvips_functions.vips_image_generate)
#define vips_image_get_bands (cvips_ready(), cvips_functions.vips_image_get_bands)
#define vips_image_get_blob (cvips_ready(), cvips_functions.vips_image_get_blob)
#define vips_image_get_coding (cvips_ready(), cvips_functions.vips_image_get_coding)
#define vips_image_get_fields (cvips_ready(), cvips_functions.vips_image_get_fields)
#define vips_image_get_format (cvips_ready(), cvips_functions.vips_image_get_format)
#define vips_image_get_height (cvips_ready(), cvips_functions.vips_image_get_height)
#define vips_image_get_int (cvips_ready(), cvips_functions.vips_image_get_int)
#define vips_image_get_interpretation (cvips_ready(), cvips_functions.vips_image_get_interpretation)
#define vips_image_get_string (cvips_ready(), cvips_functions.vips_image_get_string)
#define vips_image_get_typeof (cvips_ready(), cvips_functions.vips_image_get_typeof)
#define vips_image_get_width (cvips_ready(), cvips_functions.vips_image_get_width)
#define vips_image_new (cvips_ready(), cvips_functions.vips_image_new)
#define vips_image_new_from_buffer (cvips_ready(), cvips_functions.vips_image_new_from_buffer)
#define vips_image_new_from_file (cvips_ready(), cvips_functions.vips_image_new_from_file)
#define vips_image_new_from_memory (cvips_ready(), cvips_functions.vips_image_new_from_memory)
#define vips_image_new_from_memory_copy (cvips_ready(), cvips_functions.vips_image_new_from_memory_copy)
#define vips_image_new_matrix_from_array (cvips_ready(), cvips_functions.vips_image_new_matrix_from_array)
#define vips_image_pio_input (cvips_ready(), cvips_functions.vips_image_pio_input)
#define vips_image_pipelinev (cvips_ready(), cvips_functions.vips_image_pipelinev)
#define vips_image_remove (cvips_ready(), cvips_functions.vips_image_remove)
#define vips_image_set_blob_copy (cvips_ready(), cvips_functions.vips_image_set_blob_copy)
#define vips_image_set_int (cvips_ready(), cvips_functions.vips_image_set_int)
#define vips_image_set_kill (cvips_ready(), cvips_functions.vips_image_set_kill)
#define vips_image_set_progress (cvips_ready(), cvips_functions.vips_image_set_progress)
#define vips_image_wio_input (cvips_ready(), cvips_functions.vips_image_wio_input)
#define vips_image_write_to_file (cvips_ready(), cvips_functions.vips_image_write_to_file)
#define vips_image_write_to_memory (cvips_ready(), cvips_functions.vips_image_write_to_memory)
#define vips_init (cvips_ready(), cvips_functions.vips_init)
#define vips_interpolate_new (cvips_ready(), cvips_functions.vips_interpolate_new)
#define vips_jpegsave (cvips_ready(), cvips_functions.vips_jpegsave)
#define vips_jpegsave_buffer (cvips_ready(), cvips_functions.vips_jpegsave_buffer)
#define vips_linear (cvips_ready(), cvips_functions.vips_linear)
#define vips_maplut (cvips_ready(), cvips_functions.vips_maplut)
#define vips_multiply (cvips_ready(), cvips_functions.vips_multiply)
#define vips_recomb (cvips_ready(), cvips_functions.vips_recomb)
#define vips_rect_intersectrect (cvips_ready(), cvips_functions.vips_rect_intersectrect)
#define vips_rect_includespoint (cvips_ready(), cvips_functions.vips_rect_includespoint)
#define vips_rect_isempty (cvips_ready(), cvips_functions.vips_rect_isempty)
#define vips_region_black (cvips_ready(), cvips_functions.vips_region_black)
#define vips_region_new (cvips_ready(), cvips_functions.vips_region_new)
#define vips_region_prepare (cvips_ready(), cvips_functions.vips_region_prepare)
#define vips_relational_const1 (cvips_ready(), cvips_functions.vips_relational_const1)
#define vips_rot (cvips_ready(), cvips_functions.vips_rot)
#define vips_shrink (cvips_ready(), cvips_functions.vips_shrink)
#define vips_subtract (cvips_ready(), cvips_functions.vips_subtract)
#define vips_thumbnail (cvips_ready(), cvips_functions.vips_thumbnail)
#define vips_thumbnail_image (cvips_ready(), cvips_functions.vips_thumbnail_image)
#define vips_version (cvips_ready(), cvips_functions.vips_version)
#define vips_webpsave_buffer (cvips_ready(), cvips_functions.vips_webpsave_buffer)
#endif

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

/// Writes JPEG to memory. `strip` drops metadata (thumbnails need none). No optimized Huffman
/// tables: for thumbnails they saved a percent or two of the bytes and doubled the encoding
/// time (docs/BENCHMARKS.md).
static inline int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len,
        "Q", quality,
        "strip", TRUE,
        "optimize_coding", FALSE,
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

/// Gives back pixels an image wrapped: called once, when the image closes.
typedef void (*cvips_release_pixels)(VipsImage *image, void *data);

/// Wraps 8-bit pixels another library holds (`bands` interleaved channels, rows packed)
/// without copying them; `release(image, owner)` is called once when the image closes, or at
/// once (with a NULL image) when it cannot be made.
static inline VipsImage *cvips_image_wrap_owned(const void *data, size_t size, int width, int height, int bands,
                                                cvips_release_pixels release, void *owner) {
    VipsImage *image = vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        release(NULL, owner);
        return NULL;
    }
    image->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    g_signal_connect(image, "postclose", G_CALLBACK(release), owner);
    return image;
}

/// Wraps pixels malloc'ed elsewhere (8-bit, `bands` interleaved channels) without copying them;
/// the image owns them from here on and gives them to `release` (`free` when NULL) when it
/// closes, or at once when it cannot be made.
static inline VipsImage *cvips_image_take_memory(void *data, size_t size, int width, int height, int bands,
                                                 cvips_release_pixels release) {
    return cvips_image_wrap_owned(data, size, width, height, bands, release ? release : cvips_free_pixels, data);
}

/// The image's pixels in memory, rendering it there first if it is computed lazily: rows of
/// `*stride` bytes. NULL when libvips cannot.
static inline const unsigned char *cvips_memory_pixels(VipsImage *in, size_t *stride) {
    if (vips_image_wio_input(in)) return NULL;
    *stride = VIPS_IMAGE_SIZEOF_LINE(in);
    return (const unsigned char *)VIPS_IMAGE_ADDR(in, 0, 0);
}

/// Wraps 8-bit sRGB pixels owned by the caller, without copying them: valid while they are.
static inline VipsImage *cvips_image_borrow_memory(const void *data, size_t size, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
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

/// glibc's `Dl_info`, which its header shows only to GNU-source code, and Swift's Glibc module
/// is not that.
typedef struct {
    const char *dli_fname;
    void *dli_fbase;
    const char *dli_sname;
    void *dli_saddr;
} cvips_object_info;
extern int cvips_dladdr(const void *address, cvips_object_info *info) __asm__("dladdr");

/// The path of the shared library libvips was loaded from (its folder holds the modules
/// folder), or NULL.
static inline const char *cvips_library_path(void) {
    cvips_object_info info = {0};
    return cvips_dladdr((const void *)vips_init, &info) ? info.dli_fname : NULL;
}

/// Loads one libvips module (the HEIF loader, ImageMagick's, ...) as `vips_init` does with each
/// file of its modules folder: opening it registers its operations. Never closed.
static inline int cvips_load_module(const char *path) {
    return g_module_open(path, G_MODULE_BIND_LAZY) ? 0 : -1;
}

/// Makes glibc map every allocation of `threshold` bytes or more, and unmap it on free.
static inline void cvips_map_large_blocks(int threshold) {
    mallopt(M_MMAP_THRESHOLD, threshold);
}

/// Makes glibc keep up to `threshold` bytes free at the top of a heap before giving them back.
static inline void cvips_keep_heap_top(int threshold) {
    mallopt(M_TRIM_THRESHOLD, threshold);
}

static inline void cvips_unref(VipsImage *image) {
    g_object_unref(image);
}

static inline void cvips_free(void *pointer) {
    g_free(pointer);
}

// MARK: Editing: the operations a recipe's filters map onto.

/// a * in + b per band (`n` values each, or 1 for every band); float out.
static inline int cvips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}

/// Rounded to the nearest integer and clipped into 0...255, in one pass: libvips' linear with
/// uchar output truncates and clips, so adding a half rounds.
static inline int cvips_to_uchar(VipsImage *in, VipsImage **out) {
    if (vips_image_get_format(in) == VIPS_FORMAT_UCHAR) {
        return vips_copy(in, out, NULL);
    }
    double a[1] = {1}, b[1] = {0.5};
    return vips_linear(in, out, a, b, 1, "uchar", TRUE, NULL);
}

/// Each band's value looked up in a table of 256 entries per band (`bands` floats each,
/// interleaved: entry i of band b at i * bands + b); uchar in, float out.
static inline int cvips_maplut(VipsImage *in, VipsImage **out, const float *table, int bands) {
    VipsImage *lut = vips_image_new_from_memory_copy(table, sizeof(float) * 256 * bands, 256, 1, bands, VIPS_FORMAT_FLOAT);
    if (!lut) return -1;
    lut->Type = VIPS_INTERPRETATION_HISTOGRAM;
    int status = vips_maplut(in, out, lut, NULL);
    g_object_unref(lut);
    return status;
}

/// Bands recombined by a matrix of `rows` rows of `columns` values (one column per band in).
static inline int cvips_recomb(VipsImage *in, VipsImage **out, const double *matrix, int rows, int columns) {
    VipsImage *m = vips_image_new_matrix_from_array(columns, rows, matrix, rows * columns);
    if (!m) return -1;
    int status = vips_recomb(in, out, m, NULL);
    g_object_unref(m);
    return status;
}

/// Convolved with a `width` x `height` float mask, in float.
static inline int cvips_convf(VipsImage *in, VipsImage **out, const double *mask, int width, int height) {
    VipsImage *m = vips_image_new_matrix_from_array(width, height, mask, width * height);
    if (!m) return -1;
    int status = vips_conv(in, out, m, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(m);
    return status;
}

static inline int cvips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, NULL);
}

static inline int cvips_add(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_add(a, b, out, NULL); }
static inline int cvips_subtract(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_subtract(a, b, out, NULL); }
static inline int cvips_multiply(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_multiply(a, b, out, NULL); }
static inline int cvips_abs(VipsImage *in, VipsImage **out) { return vips_abs(in, out, NULL); }

/// 255 where `in` > `threshold`, else 0.
static inline int cvips_more_than(VipsImage *in, VipsImage **out, double threshold) {
    return vips_relational_const1(in, out, VIPS_OPERATION_RELATIONAL_MORE, threshold, NULL);
}

/// Rotated by `degrees` clockwise about its centre with bicubic interpolation, and the centred
/// `width` x `height` rectangle of the result kept: the straighten filter at full size.
/// libvips puts pixel centres at whole coordinates, so the input's centre is at
/// ((W - 1) / 2, (H - 1) / 2) and the output's at ((w - 1) / 2, (h - 1) / 2), exactly: the
/// rectangle is centred to the subpixel, as `cedit_straighten` centres a preview's.
static inline int cvips_straighten(VipsImage *in, VipsImage **out, double degrees, int width, int height) {
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    if (!bicubic) return -1;
    double angle = degrees * M_PI / 180, c = cos(angle), s = sin(angle);
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
    int status = vips_affine(in, out, c, -s, s, c,
        "interpolate", bicubic,
        "idx", -(in->Xsize - 1) / 2.0, "idy", -(in->Ysize - 1) / 2.0,
        "odx", (width - 1) / 2.0, "ody", (height - 1) / 2.0,
        "oarea", area,
        NULL);
    vips_area_unref(VIPS_AREA(area));
    g_object_unref(bicubic);
    return status;
}

static inline int cvips_flip(VipsImage *in, VipsImage **out, int vertical) {
    return vips_flip(in, out, vertical ? VIPS_DIRECTION_VERTICAL : VIPS_DIRECTION_HORIZONTAL, NULL);
}

/// Alpha flattened onto white; other images unchanged.
static inline int cvips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[1] = {255};
    return vips_flatten(in, out, "background", vips_array_double_new(white, 1), NULL);
}

/// Converts a grey, CMYK or 16-bit image to 8-bit sRGB (an image this shim made is that already).
static inline int cvips_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Writes a JPEG file with the metadata the image carries (the caller leaves EXIF and XMP,
/// and removes the ICC profile: the pixels are sRGB), in one pass over the pipeline.
static inline int cvips_jpegsave_file(VipsImage *in, const char *path, int quality) {
    // No optimize_coding: libjpeg would keep every DCT coefficient of the image for its
    // second pass (twice the decoded size at 4:4:4), for files about 5% smaller.
    return vips_jpegsave(in, path,
        "Q", quality,
        "optimize_coding", FALSE,
        "interlace", FALSE,
        "strip", FALSE,
        NULL);
}

/// Copies a blob field (EXIF, XMP, IPTC) from one image to another, when it has one.
static inline void cvips_copy_blob(VipsImage *from, VipsImage *to, const char *name) {
    const void *data = NULL;
    size_t length = 0;
    if (vips_image_get_typeof(from, name) && vips_image_get_blob(from, name, &data, &length) == 0 && data && length) {
        vips_image_set_blob_copy(to, name, data, length);
    }
}

/// A new reference to the same pixels, whose metadata can be changed without touching `in`'s.
static inline int cvips_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

static inline void cvips_set_blob(VipsImage *image, const char *name, const void *data, size_t length) {
    vips_image_set_blob_copy(image, name, data, length);
}

static inline void cvips_remove(VipsImage *image, const char *name) {
    vips_image_remove(image, name);
}

/// Removes every metadata field whose name starts with `prefix` ("exif-": the fields a loader
/// parsed out of EXIF, which jpegsave would write back, the thumbnail among them).
static inline void cvips_remove_prefixed(VipsImage *image, const char *prefix) {
    char **names = vips_image_get_fields(image);
    size_t length = strlen(prefix);
    for (char **name = names; name && *name; name++) {
        if (strncmp(*name, prefix, length) == 0) vips_image_remove(image, *name);
    }
    g_strfreev(names);
}

/// Writes an image in libvips' own lossless format (tests compare such files).
static inline int cvips_write_file(VipsImage *in, const char *path) {
    return vips_image_write_to_file(in, path, NULL);
}

static inline VipsImage *cvips_open_random(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
}

/// The image's pixels, copied out (8-bit images): `*length` bytes, freed with g_free.
static inline void *cvips_pixels(VipsImage *in, size_t *length) {
    return vips_image_write_to_memory(in, length);
}

// The libvips functions Swift calls directly, as functions: Swift sees through neither the
// names defined above nor the table's function pointers.
static inline int cvips_init(const char *argv0) { return vips_init(argv0); }
static inline int cvips_version(int flag) { return vips_version(flag); }
static inline const char *cvips_guess_prefix(const char *argv0, const char *env_name) {
    return vips_guess_prefix(argv0, env_name);
}
static inline void cvips_cache_set_max(int max) { vips_cache_set_max(max); }

/// Blocks every libvips loader but those of the formats Lightbox reads through libvips: JPEG,
/// PNG, WebP, GIF, TIFF and HEIF. libvips offers a file to each loader in turn, and some parse
/// what Lightbox never imports: ImageMagick's take a damaged TIFF or RAW, and OpenSlide's looks
/// into every TIFF for a microscope's slide (docs/SECURITY.md, finding 5). libvips still runs a
/// blocked loader's probe, so the modules Lightbox does not need are not loaded at all (Vips).
/// Called once every module is loaded, so that the loaders they add are blocked too.
static inline void cvips_allow_only_photo_loaders(void) {
    vips_operation_block_set("VipsForeignLoad", TRUE);
    static const char *const allowed[] = {
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadNsgif",
        "VipsForeignLoadGif",  "VipsForeignLoadTiff", "VipsForeignLoadHeif",
    };
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) vips_operation_block_set(allowed[i], FALSE);
}

/// Allows libvips' own `.v` format, which the tests' oracles (the `vips` command) write.
static inline void cvips_allow_vips_format(void) { vips_operation_block_set("VipsForeignLoadVips", FALSE); }

/// libvips' error buffer taken and cleared in one step (freed with `g_free`): another thread's
/// message can arrive between a read and a clear.
static inline char *cvips_error_take(void) { return vips_error_buffer_copy(); }
static inline int cvips_image_get_width(const VipsImage *image) { return vips_image_get_width(image); }
static inline int cvips_image_get_height(const VipsImage *image) { return vips_image_get_height(image); }
static inline int cvips_image_get_bands(const VipsImage *image) { return vips_image_get_bands(image); }
static inline VipsBandFormat cvips_image_get_format(const VipsImage *image) { return vips_image_get_format(image); }
static inline VipsCoding cvips_image_get_coding(const VipsImage *image) { return vips_image_get_coding(image); }
static inline VipsInterpretation cvips_image_get_interpretation(const VipsImage *image) {
    return vips_image_get_interpretation(image);
}
static inline GType cvips_image_get_typeof(const VipsImage *image, const char *name) {
    return vips_image_get_typeof(image, name);
}
static inline int cvips_image_get_int(const VipsImage *image, const char *name, int *out) {
    return vips_image_get_int(image, name, out);
}
static inline void cvips_image_set_int(VipsImage *image, const char *name, int value) {
    vips_image_set_int(image, name, value);
}
static inline int cvips_image_get_string(const VipsImage *image, const char *name, const char **out) {
    return vips_image_get_string(image, name, out);
}
static inline int cvips_image_get_blob(const VipsImage *image, const char *name, const void **data, size_t *length) {
    return vips_image_get_blob(image, name, data, length);
}
static inline VipsImage *cvips_image_copy_memory(VipsImage *image) { return vips_image_copy_memory(image); }

#endif
