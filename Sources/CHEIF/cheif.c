#include "cheif.h"
#include "cheif_tiles.h"

#include <dlfcn.h>
#include <malloc.h>
#include <libheif/heif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHEIF_FUNCTIONS(F)                                                                                         \
    F(heif_context_alloc) F(heif_context_free) F(heif_context_read_from_memory_without_copy)                     \
    F(heif_context_get_primary_image_handle) F(heif_context_get_primary_image_ID) F(heif_image_handle_get_width) F(heif_image_handle_get_height)      \
    F(heif_image_handle_get_list_of_thumbnail_IDs) F(heif_image_handle_get_thumbnail)                             \
    F(heif_image_handle_has_alpha_channel) F(heif_image_handle_get_luma_bits_per_pixel)                          \
    F(heif_image_handle_get_chroma_bits_per_pixel) F(heif_image_handle_get_color_profile_type)                   \
    F(heif_image_handle_get_raw_color_profile_size) F(heif_image_handle_get_raw_color_profile)                   \
    F(heif_image_handle_release) F(heif_decode_image) F(heif_image_get_plane_readonly) F(heif_image_get_width)  \
    F(heif_image_get_height) F(heif_image_release) F(heif_image_get_bits_per_pixel_range)                         \
    F(heif_context_get_encoder_for_format) F(heif_encoder_set_lossy_quality) F(heif_encoder_release)              \
    F(heif_image_create) F(heif_image_add_plane) F(heif_image_get_plane) F(heif_nclx_color_profile_alloc)         \
    F(heif_nclx_color_profile_free) F(heif_image_set_nclx_color_profile) F(heif_context_encode_image)             \
    F(heif_context_encode_thumbnail) F(heif_context_add_exif_metadata) F(heif_context_write) F(heif_encoder_set_parameter_string)

static struct {
#define CHEIF_MEMBER(name) __typeof__(&name) name;
    CHEIF_FUNCTIONS(CHEIF_MEMBER)
#undef CHEIF_MEMBER
} heif;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[256];

/// The library by the major version of the ABI these headers describe.
static const char library[] = "libheif.so.1";

static void load(void) {
    // Local: libheif's symbols stay out of the process's global scope. Never closed.
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(failure, sizeof(failure), "%s cannot be loaded (%s)", library, reason ? reason : "no reason given");
        return;
    }
#define CHEIF_FIND(name)                                                                          \
    if (!(heif.name = (__typeof__(heif.name))dlsym(handle, #name))) {                             \
        snprintf(failure, sizeof(failure), "%s has no function %s", library, #name);              \
        return;                                                                                   \
    }
    CHEIF_FUNCTIONS(CHEIF_FIND)
#undef CHEIF_FIND
    // Since libheif 1.13 the decoder plugins are registered by heif_init.
    struct heif_error (*init)(struct heif_init_params *) = (__typeof__(init))dlsym(handle, "heif_init");
    if (init) init(NULL);
    loaded = 1;
}

/// Fills in what went wrong: damage for invalid input and failed decoding, otherwise a file
/// libheif does not read.
static void set_failure(cheif_failure *failure, char *message, size_t length, const char *what,
                        struct heif_error error) {
    *failure = error.code == heif_error_Invalid_input || error.code == heif_error_Decoder_plugin_error
                   ? CHEIF_DAMAGED
                   : CHEIF_UNSUPPORTED;
    if (!message || !length) return;
    // libheif ends some reasons with a newline.
    const char *reason = error.message && *error.message ? error.message : "no reason given";
    size_t reason_length = strlen(reason);
    while (reason_length > 0 && (reason[reason_length - 1] == '\n' || reason[reason_length - 1] == ' ')) reason_length--;
    snprintf(message, length, "%s (%.*s)", what, (int)reason_length, reason);
}

int cheif_load(char *message, size_t message_length) {
    pthread_once(&once, load);
    if (!loaded && message && message_length) snprintf(message, message_length, "%s", failure);
    return loaded;
}

/// An image of the file decoded tile by tile through FFmpeg, once its layout was offered and
/// taken (`decoder` open): the layout with its own copies of the extents.
typedef struct {
    cheif_layout layout;
    size_t *first_extent;
    cheif_extent *extents;
    cvideo_hevc *decoder;
} tiled_image;

struct cheif_file {
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;
    heif_item_id primary_id;
    heif_item_id thumbnail_id;
    const unsigned char *data;
    size_t length;
    tiled_image primary_tiles;
    tiled_image thumbnail_tiles;
};

static void close_tiles(tiled_image *image) {
    cvideo_hevc_close(image->decoder);
    free(image->first_extent);
    free(image->extents);
    memset(image, 0, sizeof(*image));
}

void cheif_close(cheif_file *file) {
    if (!file) return;
    close_tiles(&file->primary_tiles);
    close_tiles(&file->thumbnail_tiles);
    if (file->thumbnail) heif.heif_image_handle_release(file->thumbnail);
    if (file->primary) heif.heif_image_handle_release(file->primary);
    if (file->context) heif.heif_context_free(file->context);
    free(file);
}

cheif_file *cheif_open(const void *data, size_t length, cheif_failure *failure, char *message,
                       size_t message_length) {
    *failure = CHEIF_UNSUPPORTED;
    if (!cheif_load(message, message_length)) return NULL;
    cheif_file *file = calloc(1, sizeof(*file));
    if (!file || !(file->context = heif.heif_context_alloc())) {
        if (message && message_length) snprintf(message, message_length, "out of memory");
        cheif_close(file);
        return NULL;
    }
    struct heif_error error = heif.heif_context_read_from_memory_without_copy(file->context, data, length, NULL);
    if (error.code != heif_error_Ok) {
        set_failure(failure, message, message_length, "libheif cannot read it", error);
        cheif_close(file);
        return NULL;
    }
    error = heif.heif_context_get_primary_image_handle(file->context, &file->primary);
    if (error.code == heif_error_Ok) error = heif.heif_context_get_primary_image_ID(file->context, &file->primary_id);
    if (error.code != heif_error_Ok) {
        set_failure(failure, message, message_length, "no primary image", error);
        cheif_close(file);
        return NULL;
    }
    // libheif lists a primary image's thumbnails in item order; libvips takes the first too.
    heif_item_id id;
    if (heif.heif_image_handle_get_list_of_thumbnail_IDs(file->primary, &id, 1) == 1) {
        struct heif_image_handle *thumbnail = NULL;
        if (heif.heif_image_handle_get_thumbnail(file->primary, id, &thumbnail).code == heif_error_Ok) {
            file->thumbnail = thumbnail;
            file->thumbnail_id = id;
        }
    }
    file->data = data;
    file->length = length;
    return file;
}

cheif_file *cheif_open_layouts(const void *data, size_t length) {
    cheif_file *file = calloc(1, sizeof(*file));
    if (!file) return NULL;
    file->data = data;
    file->length = length;
    return file;
}

void cheif_primary_size(const cheif_file *file, int *width, int *height) {
    *width = heif.heif_image_handle_get_width(file->primary);
    *height = heif.heif_image_handle_get_height(file->primary);
}

/// Whether libheif gives `handle` as 8-bit RGB without losing anything: no alpha, 8 bits.
static int is_rgb8(const struct heif_image_handle *handle) {
    return handle && !heif.heif_image_handle_has_alpha_channel(handle) &&
           heif.heif_image_handle_get_luma_bits_per_pixel(handle) <= 8 &&
           heif.heif_image_handle_get_chroma_bits_per_pixel(handle) <= 8;
}

int cheif_primary_is_rgb8(const cheif_file *file) { return is_rgb8(file->primary); }

int cheif_offer_layout(cheif_file *file, int thumbnail, const cheif_layout *offered) {
    tiled_image *image = thumbnail ? &file->thumbnail_tiles : &file->primary_tiles;
    const struct heif_image_handle *handle = thumbnail ? file->thumbnail : file->primary;
    if (image->decoder) return 1;
    // With libheif, the layout must describe the image libheif sees: its item, 8-bit RGB, the
    // same size once turned. Without, the caller's reading is all there is.
    if (file->context) {
        if (!handle || !is_rgb8(handle) || offered->item != (thumbnail ? file->thumbnail_id : file->primary_id)) {
            return 0;
        }
        int turned = offered->rotation & 1;
        if ((turned ? offered->height : offered->width) != heif.heif_image_handle_get_width(handle) ||
            (turned ? offered->width : offered->height) != heif.heif_image_handle_get_height(handle)) {
            return 0;
        }
    }
    // The decoder configuration record's chroma format (1: 4:2:0) and bit depths less 8, in
    // bytes 16 to 18: 8-bit 4:2:0, as phones write; libheif decodes the others.
    const unsigned char *config = file->data + offered->config_offset;
    if (offered->config_offset > file->length || offered->config_length > file->length - offered->config_offset ||
        offered->config_length < 23 || (config[16] & 3) != 1 || (config[17] & 7) != 0 || (config[18] & 7) != 0) {
        return 0;
    }
    size_t pictures = (size_t)offered->rows * (size_t)offered->columns;
    if (offered->rows <= 0 || offered->columns <= 0 || offered->first_extent[0] != 0) return 0;
    size_t extents = offered->first_extent[pictures];
    for (size_t picture = 0; picture < pictures; picture++) {
        if (offered->first_extent[picture + 1] <= offered->first_extent[picture]) return 0;
    }
    for (size_t e = 0; e < extents; e++) {
        const cheif_extent *extent = &offered->extents[e];
        if (extent->offset > file->length || extent->length > file->length - extent->offset) return 0;
    }
    image->first_extent = malloc((pictures + 1) * sizeof(size_t));
    image->extents = malloc(extents * sizeof(cheif_extent));
    if (!image->first_extent || !image->extents ||
        cvideo_hevc_open(config, offered->config_length, cheif_picture_limit(offered), &image->decoder, NULL, 0) != CVIDEO_OK) {
        close_tiles(image);
        return 0;
    }
    memcpy(image->first_extent, offered->first_extent, (pictures + 1) * sizeof(size_t));
    memcpy(image->extents, offered->extents, extents * sizeof(cheif_extent));
    image->layout = *offered;
    image->layout.first_extent = image->first_extent;
    image->layout.extents = image->extents;
    return 1;
}

int cheif_thumbnail_size(const cheif_file *file, int *width, int *height) {
    if (!is_rgb8(file->thumbnail)) return 0;
    *width = heif.heif_image_handle_get_width(file->thumbnail);
    *height = heif.heif_image_handle_get_height(file->thumbnail);
    return *width > 0 && *height > 0;
}

/// The mean of one channel over the block [x0, x1) x [y0, y1), rounded.
static unsigned char block_mean(const unsigned char *plane, int stride, int x0, int x1, int y0, int y1) {
    unsigned sum = 0, count = (unsigned)((x1 - x0) * (y1 - y0));
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) sum += plane[(size_t)y * stride + x];
    }
    return (unsigned char)((sum + count / 2) / count);
}

/// The whole `shrink` x `shrink` blocks of a row of blocks: each channel's rows added into
/// `columns` (one sum a pixel column, which the compiler turns into vector adds), then each
/// block's columns added and divided by a power of two.
static void shrink_whole_blocks(const unsigned char *const planes[3], const int strides[3], int block_row,
                                int blocks, int shrink, unsigned char *row_out, uint16_t *columns) {
    int log2 = shrink == 2 ? 2 : shrink == 4 ? 4 : 6, half = 1 << (log2 - 1);
    int span = blocks * shrink;
    for (int channel = 0; channel < 3; channel++) {
        const unsigned char *top = planes[channel] + (size_t)block_row * shrink * strides[channel];
        for (int x = 0; x < span; x++) columns[x] = top[x];
        for (int dy = 1; dy < shrink; dy++) {
            const unsigned char *row = top + (size_t)dy * strides[channel];
            for (int x = 0; x < span; x++) columns[x] += row[x];
        }
        unsigned char *out = row_out + channel;
        switch (shrink) {
        case 2:
            for (int block = 0; block < blocks; block++) {
                out[block * 3] = (unsigned char)((columns[2 * block] + columns[2 * block + 1] + half) >> log2);
            }
            break;
        default:
            for (int block = 0; block < blocks; block++) {
                unsigned sum = 0;
                for (int dx = 0; dx < shrink; dx++) sum += columns[block * shrink + dx];
                out[block * 3] = (unsigned char)((sum + (unsigned)half) >> log2);
            }
        }
    }
}

/// Planar 8-bit RGB to interleaved RGB `shrink` (1, 2, 4 or 8) times smaller, rounded up, each
/// output pixel the rounded mean of its block (a part block at the right and bottom edges).
/// `columns` holds the image's width.
static void shrink_planar_rgb(const unsigned char *const planes[3], const int strides[3], int width, int height,
                              int shrink, unsigned char *out, size_t out_stride, uint16_t *columns) {
    int out_width = (width + shrink - 1) / shrink, out_height = (height + shrink - 1) / shrink;
    int whole_columns = width / shrink, whole_rows = height / shrink;
    for (int oy = 0; oy < out_height; oy++) {
        unsigned char *row_out = out + (size_t)oy * out_stride;
        int first_part = 0;
        if (shrink == 1) {
            for (int x = 0; x < width; x++) {
                for (int channel = 0; channel < 3; channel++) {
                    row_out[x * 3 + channel] = planes[channel][(size_t)oy * strides[channel] + x];
                }
            }
            continue;
        }
        if (oy < whole_rows) {
            shrink_whole_blocks(planes, strides, oy, whole_columns, shrink, row_out, columns);
            first_part = whole_columns;
        }
        int y0 = oy * shrink, y1 = y0 + shrink < height ? y0 + shrink : height;
        for (int ox = first_part; ox < out_width; ox++) {
            int x0 = ox * shrink, x1 = x0 + shrink < width ? x0 + shrink : width;
            for (int channel = 0; channel < 3; channel++) {
                row_out[ox * 3 + channel] = block_mean(planes[channel], strides[channel], x0, x1, y0, y1);
            }
        }
    }
}

/// The handle decoded to planar RGB and interleaved here, `shrink` times smaller. libheif 1.15
/// assembles a grid image (every iPhone photo is one) in planar RGB and interleaves it into a
/// second whole copy; this takes the planes as they are. Returns 1, or 0 with `*failure` and
/// `message` saying why.
static int decode_shrinking(const struct heif_image_handle *handle, int shrink, cheif_allocate allocate,
                            cheif_decoded *decoded, cheif_failure *failure, char *message, size_t message_length) {
    struct heif_image *image = NULL;
    struct heif_error error = heif.heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_444, NULL);
    if (error.code != heif_error_Ok) {
        set_failure(failure, message, message_length, "libheif cannot decode the image", error);
        return 0;
    }
    const enum heif_channel channels[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
    const unsigned char *planes[3] = {NULL, NULL, NULL};
    int strides[3] = {0, 0, 0};
    int width = heif.heif_image_get_width(image, heif_channel_R);
    int height = heif.heif_image_get_height(image, heif_channel_R);
    int usable = width > 0 && height > 0;
    for (int index = 0; usable && index < 3; index++) {
        usable = heif.heif_image_get_bits_per_pixel_range(image, channels[index]) == 8 &&
                 (planes[index] = heif.heif_image_get_plane_readonly(image, channels[index], &strides[index])) &&
                 strides[index] >= width && heif.heif_image_get_width(image, channels[index]) == width &&
                 heif.heif_image_get_height(image, channels[index]) == height;
    }
    if (!usable) {
        heif.heif_image_release(image);
        if (message && message_length) snprintf(message, message_length, "the image decoded to no pixels");
        *failure = CHEIF_DAMAGED;
        return 0;
    }
    int out_width = (width + shrink - 1) / shrink, out_height = (height + shrink - 1) / shrink;
    size_t out_stride = (size_t)out_width * 3;
    uint16_t *columns = malloc((size_t)width * sizeof(uint16_t));
    unsigned char *out = columns ? allocate(out_stride * (size_t)out_height) : NULL;
    if (!out) {
        free(columns);
        heif.heif_image_release(image);
        if (message && message_length) snprintf(message, message_length, "out of memory");
        *failure = CHEIF_UNSUPPORTED;
        return 0;
    }
    shrink_planar_rgb(planes, strides, width, height, shrink, out, out_stride, columns);
    free(columns);
    heif.heif_image_release(image);
    decoded->pixels = out;
    decoded->stride = out_stride;
    decoded->width = out_width;
    decoded->height = out_height;
    return 1;
}

int cheif_decode(cheif_file *file, int thumbnail, int shrink, cheif_allocate allocate, cheif_monitor monitor,
                 void *context, const cheif_helpers *helpers, cheif_decoded *decoded, cheif_failure *failure,
                 char *message, size_t message_length) {
    memset(decoded, 0, sizeof(*decoded));
    *failure = CHEIF_UNSUPPORTED;
    struct heif_image_handle *handle = thumbnail ? file->thumbnail : file->primary;
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) {
        if (message && message_length) snprintf(message, message_length, "cannot shrink by %d", shrink);
        return 0;
    }
    tiled_image *image = thumbnail ? &file->thumbnail_tiles : &file->primary_tiles;
    if (file->context ? !is_rgb8(handle) : !image->decoder) {
        if (message && message_length) {
            snprintf(message, message_length, file->context ? "not an 8-bit RGB image" : "no layout was taken");
        }
        return 0;
    }
    int tiled = 0;
    if (image->decoder) {
        int result = cheif_decode_tiles(file->data, &image->layout, image->decoder, shrink, allocate, monitor, context,
                                        helpers, decoded, message, message_length);
        if (result < 0) {
            *failure = CHEIF_STOPPED;
            if (message && message_length) snprintf(message, message_length, "stopped");
            return 0;
        }
        // A tile FFmpeg refuses: libheif has the last word.
        tiled = result == 1;
        if (!tiled && !file->context) {
            if (message && message_length) snprintf(message, message_length, "FFmpeg refused a tile");
            return 0;
        }
    }
    // No progress callbacks: libheif 1.15 calls none, on a grid HEIC or a single AVIF, with or
    // without its decoding threads.
    if (!tiled && !decode_shrinking(handle, shrink, allocate, decoded, failure, message, message_length)) return 0;
    decoded->tiled = tiled;
    if (!file->context) return 1;
    enum heif_color_profile_type type = heif.heif_image_handle_get_color_profile_type(handle);
    if (type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC) {
        size_t length = heif.heif_image_handle_get_raw_color_profile_size(handle);
        if (length > 0 && (decoded->icc = malloc(length))) {
            if (heif.heif_image_handle_get_raw_color_profile(handle, decoded->icc).code == heif_error_Ok) {
                decoded->icc_length = length;
            } else {
                free(decoded->icc);
                decoded->icc = NULL;
            }
        }
    }
    return 1;
}

/// Appends what libheif writes to a growing buffer.
typedef struct {
    unsigned char *bytes;
    size_t length;
    int failed;
} output_buffer;

static struct heif_error append(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    output_buffer *buffer = userdata;
    unsigned char *grown = realloc(buffer->bytes, buffer->length + size);
    if (!grown) {
        buffer->failed = 1;
        return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    }
    memcpy(grown + buffer->length, data, size);
    buffer->bytes = grown;
    buffer->length += size;
    return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
}

int cheif_encode_yuv420(const unsigned char *const planes[3], const int strides[3], int width, int height,
                        int quality, const char *preset, const unsigned char *exif, size_t exif_length, int thumbnail_size,
                        unsigned char **out, size_t *out_length, char *message, size_t message_length) {
    *out = NULL;
    *out_length = 0;
    cheif_failure ignored;
    if (!cheif_load(message, message_length)) return 0;
    if (width < 2 || height < 2 || width > 16384 || height > 16384 || quality < 1 || quality > 100 ||
        exif_length > (1 << 20)) {
        snprintf(message, message_length, "the image's size, quality or EXIF block is out of range");
        return 0;
    }
    width &= ~1;
    height &= ~1;
    struct heif_context *context = heif.heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL, *thumbnail = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    output_buffer buffer = {0};
    int done = 0;
    struct heif_error error = heif.heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder);
    if (error.code) {
        set_failure(&ignored, message, message_length, "libheif has no HEVC encoder", error);
        goto finish;
    }
    heif.heif_encoder_set_lossy_quality(encoder, quality);
    // x265's preset, in place of libheif's default, "slow" (docs/BENCHMARKS.md, Capture).
    if (preset && *preset) heif.heif_encoder_set_parameter_string(encoder, "preset", preset);
    if ((error = heif.heif_image_create(width, height, heif_colorspace_YCbCr, heif_chroma_420, &image)).code) {
        set_failure(&ignored, message, message_length, "cannot make the image", error);
        goto finish;
    }
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int c = 0; c < 3; c++) {
        int plane_width = c ? width / 2 : width, plane_height = c ? height / 2 : height, stride = 0;
        if ((error = heif.heif_image_add_plane(image, channels[c], plane_width, plane_height, 8)).code) {
            set_failure(&ignored, message, message_length, "cannot make the image's planes", error);
            goto finish;
        }
        unsigned char *plane = heif.heif_image_get_plane(image, channels[c], &stride);
        for (int y = 0; y < plane_height; y++)
            memcpy(plane + (size_t)y * stride, planes[c] + (size_t)y * strides[c], (size_t)plane_width);
    }
    // Limited-range BT.601 4:2:0 with sRGB's primaries and curve: what cameras and FFmpeg's
    // pattern deliver, stated so that decoders convert it back as it was made.
    nclx = heif.heif_nclx_color_profile_alloc();
    if (nclx) {
        nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 0;
        heif.heif_image_set_nclx_color_profile(image, nclx);
    }
    if ((error = heif.heif_context_encode_image(context, image, encoder, NULL, &handle)).code) {
        set_failure(&ignored, message, message_length, "cannot encode the image", error);
        goto finish;
    }
    if (thumbnail_size > 0 &&
        (error = heif.heif_context_encode_thumbnail(context, image, handle, encoder, NULL, thumbnail_size, &thumbnail))
            .code) {
        set_failure(&ignored, message, message_length, "cannot encode the thumbnail", error);
        goto finish;
    }
    if (exif && exif_length &&
        (error = heif.heif_context_add_exif_metadata(context, handle, exif, (int)exif_length)).code) {
        set_failure(&ignored, message, message_length, "cannot add the EXIF block", error);
        goto finish;
    }
    struct heif_writer writer = {.writer_api_version = 1, .write = append};
    if ((error = heif.heif_context_write(context, &writer, &buffer)).code || buffer.failed) {
        set_failure(&ignored, message, message_length, "cannot write the HEIF", error);
        goto finish;
    }
    *out = buffer.bytes;
    *out_length = buffer.length;
    buffer.bytes = NULL;
    done = 1;
finish:
    free(buffer.bytes);
    if (nclx) heif.heif_nclx_color_profile_free(nclx);
    if (thumbnail) heif.heif_image_handle_release(thumbnail);
    if (handle) heif.heif_image_handle_release(handle);
    if (image) heif.heif_image_release(image);
    if (encoder) heif.heif_encoder_release(encoder);
    heif.heif_context_free(context);
    // x265 frees what it took in its worker threads' malloc arenas, which glibc keeps: handed
    // back, a capture session's memory stays at one encode's worth instead of growing to several
    // (docs/BENCHMARKS.md, Capture).
    malloc_trim(0);
    return done;
}
