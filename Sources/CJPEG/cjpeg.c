#include "cjpeg.h"
#include "cjpeg_fast.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

// One decode's state: libjpeg's structures first, so that a pointer to `error` or `progress`
// is also a pointer to this struct.
typedef struct {
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    cjpeg_status status;
    int truncated;
    int max_scans;
    cjpeg_monitor monitor;
    void *context;
    char *message;
    size_t message_length;
} decoder;

static void set_message(decoder *d, const char *text) {
    if (d->message && d->message_length > 0) {
        snprintf(d->message, d->message_length, "%s", text);
    }
}

static void on_error(j_common_ptr cinfo) {
    decoder *d = (decoder *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    set_message(d, text);
    int code = cinfo->err->msg_code;
    if (d->status == CJPEG_OK) {
        d->status = (code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY) ? CJPEG_TOO_LARGE : CJPEG_CORRUPT;
    }
    longjmp(d->escape, 1);
}

// Warnings are not printed. Running out of data is remembered: libjpeg then pads the image
// with grey, which must not pass for the photo.
static void on_message(j_common_ptr cinfo, int level) {
    decoder *d = (decoder *)cinfo->err;
    if (level < 0) {
        cinfo->err->num_warnings++;
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
            d->truncated = 1;
        }
    }
}

static void on_progress(j_common_ptr cinfo) {
    decoder *d = (decoder *)cinfo->err;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > d->max_scans) {
        d->status = CJPEG_CORRUPT;
        set_message(d, "too many progressive scans");
        longjmp(d->escape, 1);
    }
    if (d->monitor) {
        struct jpeg_progress_mgr *p = &d->progress;
        double pass = p->pass_limit > 0 ? (double)p->pass_counter / (double)p->pass_limit : 0;
        double total = p->total_passes > 0 ? (double)p->total_passes : 1;
        double fraction = ((double)p->completed_passes + pass) / total;
        if (fraction > 1) fraction = 1;
        if (d->monitor(d->context, fraction)) {
            d->status = CJPEG_CANCELLED;
            set_message(d, "cancelled");
            longjmp(d->escape, 1);
        }
    }
}

static void setup(decoder *d, struct jpeg_decompress_struct *cinfo, char *message, size_t message_length) {
    memset(d, 0, sizeof(*d));
    d->message = message;
    d->message_length = message_length;
    d->max_scans = 1000;
    if (message && message_length > 0) message[0] = 0;
    cinfo->err = jpeg_std_error(&d->error);
    d->error.error_exit = on_error;
    d->error.emit_message = on_message;
}

static int is_supported(const struct jpeg_decompress_struct *cinfo) {
    return cinfo->data_precision == 8
        && (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_GRAYSCALE
            || cinfo->jpeg_color_space == JCS_RGB);
}

cjpeg_status cjpeg_read_header(const unsigned char *data, size_t length, cjpeg_header *header,
                               char *message, size_t message_length) {
    decoder d;
    struct jpeg_decompress_struct cinfo;
    setup(&d, &cinfo, message, message_length);
    memset(header, 0, sizeof(*header));
    if (setjmp(d.escape)) {
        jpeg_destroy_decompress(&cinfo);
        return d.status == CJPEG_OK ? CJPEG_CORRUPT : d.status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->components = cinfo.num_components;
    header->progressive = cinfo.progressive_mode ? 1 : 0;
    header->supported = is_supported(&cinfo);
    // As jdcoefct.c sizes its whole-image arrays: blocks rounded up to whole MCUs, 64
    // coefficients of 2 bytes each.
    for (int c = 0; c < cinfo.num_components; c++) {
        const jpeg_component_info *component = &cinfo.comp_info[c];
        size_t across = (component->width_in_blocks + component->h_samp_factor - 1) / component->h_samp_factor
            * component->h_samp_factor;
        size_t down = (component->height_in_blocks + component->v_samp_factor - 1) / component->v_samp_factor
            * component->v_samp_factor;
        header->coefficient_bytes += across * down * DCTSIZE2 * sizeof(JCOEF);
    }
    jpeg_destroy_decompress(&cinfo);
    if (d.truncated) {
        set_message(&d, "the file ends inside the JPEG header");
        return CJPEG_TRUNCATED;
    }
    return CJPEG_OK;
}

/// Fills in a decoded image, which then owns `pixels` and `icc`.
static void hand_over(cjpeg_image *image, unsigned char *pixels, size_t width, size_t height, size_t bands,
                      unsigned char *icc, unsigned int icc_length, int own_decoder) {
    image->pixels = pixels;
    image->width = (int)width;
    image->height = (int)height;
    image->bands = (int)bands;
    image->icc = icc;
    image->icc_length = icc ? icc_length : 0;
    image->own_decoder = own_decoder;
}

cjpeg_status cjpeg_decode(const unsigned char *data, size_t length, int scale_eighths,
                          size_t max_pixels, size_t max_memory, int max_scans,
                          int flags, cjpeg_allocate allocate, cjpeg_monitor monitor, void *context,
                          cjpeg_image *image, char *message, size_t message_length) {
    decoder d;
    struct jpeg_decompress_struct cinfo;
    setup(&d, &cinfo, message, message_length);
    d.max_scans = max_scans;
    d.monitor = monitor;
    d.context = context;
    memset(image, 0, sizeof(*image));
    // Written between setjmp and a possible longjmp: volatile, so their values survive it.
    unsigned char *volatile pixels = NULL;
    JOCTET *volatile icc = NULL;

    if (setjmp(d.escape)) {
        free(pixels);
        free(icc);
        jpeg_destroy_decompress(&cinfo);
        return d.status == CJPEG_OK ? CJPEG_CORRUPT : d.status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = (long)max_memory;
    d.progress.progress_monitor = on_progress;
    cinfo.progress = &d.progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    if (!is_supported(&cinfo)) {
        jpeg_destroy_decompress(&cinfo);
        set_message(&d, "a colour space or precision this decoder leaves to libvips");
        return CJPEG_UNSUPPORTED;
    }
    JOCTET *profile = NULL;
    unsigned int profile_length = 0;
    if (jpeg_read_icc_profile(&cinfo, &profile, &profile_length)) {
        icc = profile;
    }
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = (unsigned int)(scale_eighths < 1 ? 1 : scale_eighths > 8 ? 8 : scale_eighths);
    cinfo.scale_denom = 8;
    jpeg_calc_output_dimensions(&cinfo);
    size_t width = cinfo.output_width, height = cinfo.output_height, bands = (size_t)cinfo.output_components;
    if (width == 0 || height == 0 || width > max_pixels / height) {
        jpeg_destroy_decompress(&cinfo);
        free(icc);
        set_message(&d, "the image has more pixels than allowed");
        return CJPEG_TOO_LARGE;
    }
    size_t stride = width * bands;
    pixels = allocate ? allocate(stride * height) : malloc(stride * height);
    if (!pixels) {
        d.status = CJPEG_TOO_LARGE;
        set_message(&d, "out of memory for the pixels");
        longjmp(d.escape, 1);
    }
    if (!(flags & CJPEG_LIBJPEG_ONLY)) {
        fast_status fast = cjpeg_fast_decode(&cinfo, cinfo.src->next_input_byte, cinfo.src->bytes_in_buffer,
                                             pixels, stride, max_memory, monitor, context);
        if (fast == FAST_CANCELLED) {
            jpeg_destroy_decompress(&cinfo);
            free(pixels);
            free(icc);
            set_message(&d, "cancelled");
            return CJPEG_CANCELLED;
        }
        if (fast == FAST_DONE) {
            jpeg_destroy_decompress(&cinfo);
            hand_over(image, pixels, width, height, bands, icc, profile_length, 1);
            return CJPEG_OK;
        }
    }
    jpeg_start_decompress(&cinfo);
    JSAMPROW rows[16];
    while (cinfo.output_scanline < cinfo.output_height) {
        JDIMENSION batch = cinfo.output_height - cinfo.output_scanline;
        if (batch > 16) batch = 16;
        for (JDIMENSION i = 0; i < batch; i++) {
            rows[i] = pixels + (size_t)(cinfo.output_scanline + i) * stride;
        }
        jpeg_read_scanlines(&cinfo, rows, batch);
        if (d.truncated) break;
    }
    if (!d.truncated) {
        jpeg_finish_decompress(&cinfo);
    }
    jpeg_destroy_decompress(&cinfo);
    if (d.truncated) {
        free(pixels);
        free(icc);
        set_message(&d, "the file ends before the image data does");
        return CJPEG_TRUNCATED;
    }
    hand_over(image, pixels, width, height, bands, icc, profile_length, 0);
    return CJPEG_OK;
}

cjpeg_status cjpeg_encode(const unsigned char *pixels, int width, int height, size_t stride, int bands, int quality,
                          unsigned char **out, size_t *out_length, char *message, size_t message_length) {
    *out = NULL;
    *out_length = 0;
    if (message && message_length > 0) message[0] = 0;
    if (!pixels || width < 1 || height < 1 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION
        || (bands != 1 && bands != 3) || stride < (size_t)width * (size_t)bands) {
        if (message && message_length > 0) snprintf(message, message_length, "an image JPEG cannot hold");
        return CJPEG_UNSUPPORTED;
    }
    decoder d;
    struct jpeg_compress_struct cinfo;
    memset(&d, 0, sizeof(d));
    d.message = message;
    d.message_length = message_length;
    cinfo.err = jpeg_std_error(&d.error);
    d.error.error_exit = on_error;
    d.error.emit_message = on_message;
    // Set by libjpeg's memory destination, which grows it by doubling.
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    if (setjmp(d.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return d.status == CJPEG_OK ? CJPEG_CORRUPT : d.status;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = bands;
    cinfo.in_color_space = bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    // libvips' rule: chroma at full resolution from quality 90 up, else 4:2:0 (the default).
    if (bands == 3 && quality >= 90) {
        for (int c = 0; c < cinfo.num_components; c++) {
            cinfo.comp_info[c].h_samp_factor = 1;
            cinfo.comp_info[c].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(&cinfo, TRUE);
    JSAMPROW rows[16];
    while (cinfo.next_scanline < cinfo.image_height) {
        JDIMENSION batch = cinfo.image_height - cinfo.next_scanline;
        if (batch > 16) batch = 16;
        for (JDIMENSION i = 0; i < batch; i++) {
            rows[i] = (JSAMPROW)(pixels + (size_t)(cinfo.next_scanline + i) * stride);
        }
        jpeg_write_scanlines(&cinfo, rows, batch);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_length = length;
    return CJPEG_OK;
}

void cjpeg_free(cjpeg_image *image) {
    free(image->pixels);
    free(image->icc);
    image->pixels = NULL;
    image->icc = NULL;
}
