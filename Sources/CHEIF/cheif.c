#include "cheif.h"

#include <dlfcn.h>
#include <libheif/heif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHEIF_FUNCTIONS(F)                                                                                         \
    F(heif_context_alloc) F(heif_context_free) F(heif_context_read_from_memory_without_copy)                     \
    F(heif_context_get_primary_image_handle) F(heif_image_handle_get_width) F(heif_image_handle_get_height)      \
    F(heif_image_handle_get_list_of_thumbnail_IDs) F(heif_image_handle_get_thumbnail)                             \
    F(heif_image_handle_has_alpha_channel) F(heif_image_handle_get_luma_bits_per_pixel)                          \
    F(heif_image_handle_get_chroma_bits_per_pixel) F(heif_image_handle_get_color_profile_type)                   \
    F(heif_image_handle_get_raw_color_profile_size) F(heif_image_handle_get_raw_color_profile)                   \
    F(heif_image_handle_release) F(heif_decode_image) F(heif_image_get_plane_readonly) F(heif_image_get_width)  \
    F(heif_image_get_height) F(heif_image_release)

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

static void set_message(char *message, size_t length, const char *what, struct heif_error error) {
    if (message && length) snprintf(message, length, "%s (%s)", what, error.message ? error.message : "no reason given");
}

struct cheif_file {
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;
};

void cheif_close(cheif_file *file) {
    if (!file) return;
    if (file->thumbnail) heif.heif_image_handle_release(file->thumbnail);
    if (file->primary) heif.heif_image_handle_release(file->primary);
    if (file->context) heif.heif_context_free(file->context);
    free(file);
}

cheif_file *cheif_open(const void *data, size_t length, char *message, size_t message_length) {
    pthread_once(&once, load);
    if (!loaded) {
        if (message && message_length) snprintf(message, message_length, "%s", failure);
        return NULL;
    }
    cheif_file *file = calloc(1, sizeof(*file));
    if (!file || !(file->context = heif.heif_context_alloc())) {
        if (message && message_length) snprintf(message, message_length, "out of memory");
        cheif_close(file);
        return NULL;
    }
    struct heif_error error = heif.heif_context_read_from_memory_without_copy(file->context, data, length, NULL);
    if (error.code != heif_error_Ok) {
        set_message(message, message_length, "not a HEIF libheif reads", error);
        cheif_close(file);
        return NULL;
    }
    error = heif.heif_context_get_primary_image_handle(file->context, &file->primary);
    if (error.code != heif_error_Ok) {
        set_message(message, message_length, "no primary image", error);
        cheif_close(file);
        return NULL;
    }
    // libheif lists a primary image's thumbnails in item order; libvips takes the first too.
    heif_item_id id;
    if (heif.heif_image_handle_get_list_of_thumbnail_IDs(file->primary, &id, 1) == 1) {
        struct heif_image_handle *thumbnail = NULL;
        if (heif.heif_image_handle_get_thumbnail(file->primary, id, &thumbnail).code == heif_error_Ok) {
            file->thumbnail = thumbnail;
        }
    }
    return file;
}

void cheif_primary_size(const cheif_file *file, int *width, int *height) {
    *width = heif.heif_image_handle_get_width(file->primary);
    *height = heif.heif_image_handle_get_height(file->primary);
}

int cheif_thumbnail_size(const cheif_file *file, int *width, int *height) {
    const struct heif_image_handle *thumbnail = file->thumbnail;
    if (!thumbnail || heif.heif_image_handle_has_alpha_channel(thumbnail) ||
        heif.heif_image_handle_get_luma_bits_per_pixel(thumbnail) > 8 ||
        heif.heif_image_handle_get_chroma_bits_per_pixel(thumbnail) > 8) {
        return 0;
    }
    *width = heif.heif_image_handle_get_width(thumbnail);
    *height = heif.heif_image_handle_get_height(thumbnail);
    return *width > 0 && *height > 0;
}

int cheif_decode_thumbnail(cheif_file *file, unsigned char **pixels, int *width, int *height,
                           unsigned char **icc, size_t *icc_length, char *message, size_t message_length) {
    *pixels = NULL;
    *icc = NULL;
    *icc_length = 0;
    int expected_width, expected_height;
    if (!cheif_thumbnail_size(file, &expected_width, &expected_height)) {
        if (message && message_length) snprintf(message, message_length, "no 8-bit RGB thumbnail");
        return 0;
    }
    struct heif_image *image = NULL;
    struct heif_error error =
        heif.heif_decode_image(file->thumbnail, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (error.code != heif_error_Ok) {
        set_message(message, message_length, "cannot decode the thumbnail", error);
        return 0;
    }
    int stride = 0;
    const uint8_t *plane = heif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int w = heif.heif_image_get_width(image, heif_channel_interleaved);
    int h = heif.heif_image_get_height(image, heif_channel_interleaved);
    size_t row = (size_t)w * 3;
    if (!plane || w <= 0 || h <= 0 || stride < 0 || (size_t)stride < row ||
        !(*pixels = malloc(row * (size_t)h))) {
        if (message && message_length) snprintf(message, message_length, "the thumbnail decoded to no pixels");
        heif.heif_image_release(image);
        return 0;
    }
    for (int y = 0; y < h; y++) memcpy(*pixels + row * (size_t)y, plane + (size_t)stride * (size_t)y, row);
    heif.heif_image_release(image);
    *width = w;
    *height = h;
    enum heif_color_profile_type type = heif.heif_image_handle_get_color_profile_type(file->thumbnail);
    if (type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC) {
        size_t length = heif.heif_image_handle_get_raw_color_profile_size(file->thumbnail);
        if (length > 0 && (*icc = malloc(length))) {
            if (heif.heif_image_handle_get_raw_color_profile(file->thumbnail, *icc).code == heif_error_Ok) {
                *icc_length = length;
            } else {
                free(*icc);
                *icc = NULL;
            }
        }
    }
    return 1;
}
