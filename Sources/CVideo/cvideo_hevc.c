#include "cvideo.h"
#include "cvideo_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cvideo_hevc {
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    /// The picture's bytes with the zeroed padding FFmpeg's bitstream reader may read past the
    /// end (`AV_INPUT_BUFFER_PADDING_SIZE`).
    unsigned char *buffer;
    size_t capacity;
    /// What it was opened with, to be handed out again for the same.
    unsigned char *config;
    size_t config_length;
    size_t max_pixels;
    /// The bytes before each NAL unit giving its length (the configuration's
    /// `lengthSizeMinusOne` plus 1).
    int length_size;
    /// 0 once a picture failed or carried parameter sets (which would change the decoder for
    /// the next file): such a decoder is never kept.
    int clean;
};

/// Decoders given back clean, oldest first, for a later open with the same configuration.
enum { kept_limit = 4 };
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static cvideo_hevc *kept[kept_limit];
static int kept_count;

static void free_decoder(cvideo_hevc *decoder) {
    if (!decoder) return;
    ffmpeg.av_frame_free(&decoder->frame);
    ffmpeg.av_packet_free(&decoder->packet);
    ffmpeg.avcodec_free_context(&decoder->codec);
    free(decoder->buffer);
    free(decoder->config);
    free(decoder);
}

/// A kept decoder opened with `config` and `max_pixels`, taken out of the kept ones; NULL.
static cvideo_hevc *take_kept(const unsigned char *config, size_t config_length, size_t max_pixels) {
    cvideo_hevc *found = NULL;
    pthread_mutex_lock(&kept_lock);
    for (int i = kept_count - 1; i >= 0 && !found; i--) {
        cvideo_hevc *candidate = kept[i];
        if (candidate->max_pixels == max_pixels && candidate->config_length == config_length &&
            memcmp(candidate->config, config, config_length) == 0) {
            found = candidate;
            memmove(&kept[i], &kept[i + 1], (size_t)(kept_count - i - 1) * sizeof(kept[0]));
            kept_count--;
        }
    }
    pthread_mutex_unlock(&kept_lock);
    return found;
}

int cvideo_hevc_reusable(const cvideo_hevc *decoder) { return decoder && decoder->clean; }

void cvideo_hevc_close(cvideo_hevc *decoder) {
    if (!decoder) return;
    if (!decoder->clean) {
        free_decoder(decoder);
        return;
    }
    // The picture's buffer goes back to the decoder's pool; the next decode flushes.
    ffmpeg.av_frame_unref(decoder->frame);
    cvideo_hevc *oldest = NULL;
    pthread_mutex_lock(&kept_lock);
    if (kept_count == kept_limit) {
        oldest = kept[0];
        memmove(&kept[0], &kept[1], (size_t)(kept_limit - 1) * sizeof(kept[0]));
        kept_count--;
    }
    kept[kept_count++] = decoder;
    pthread_mutex_unlock(&kept_lock);
    free_decoder(oldest);
}

/// Whether `data` is whole NAL units, each after its `length_size`-byte length, none of them a
/// parameter set (VPS, SPS, PPS: types 32 to 34), which FFmpeg would keep for later pictures.
static int only_pictures(const unsigned char *data, size_t length, int length_size) {
    size_t at = 0;
    while (at < length) {
        if (length - at < (size_t)length_size) return 0;
        size_t size = 0;
        for (int i = 0; i < length_size; i++) size = (size << 8) | data[at + i];
        at += (size_t)length_size;
        if (size == 0 || size > length - at) return 0;
        int type = (data[at] >> 1) & 0x3f;
        if (type >= 32 && type <= 34) return 0;
        at += size;
    }
    return 1;
}

/// FFmpeg's buffer for a picture, made black first. The decoder reuses its buffers, and a
/// damaged picture whose slice ends early (which FFmpeg does not report) leaves the rest of
/// the buffer as it was: black, not the last picture this decoder made (of this file or, kept,
/// of an earlier one), which would differ with the order pictures are decoded in.
static int black_buffer(AVCodecContext *codec, AVFrame *frame, int flags) {
    int error = ffmpeg.avcodec_default_get_buffer2(codec, frame, flags);
    if (error < 0) return error;
    // The default allocator gives each plane a buffer of its own: Y, then Cb and Cr.
    for (int plane = 0; plane < 3 && frame->buf[plane]; plane++) {
        memset(frame->buf[plane]->data, plane == 0 ? 0 : 128, frame->buf[plane]->size);
    }
    return 0;
}

cvideo_status cvideo_hevc_open(const unsigned char *config, size_t config_length, size_t max_pixels,
                               cvideo_hevc **out, char *message, size_t message_length) {
    *out = NULL;
    if (message && message_length) message[0] = 0;
    if (!cvideo_load_codec(message, message_length)) return CVIDEO_UNAVAILABLE;
    if ((*out = take_kept(config, config_length, max_pixels))) return CVIDEO_OK;
    ffmpeg.av_log_set_level(AV_LOG_QUIET);
    const AVCodec *hevc = ffmpeg.avcodec_find_decoder(AV_CODEC_ID_HEVC);
    if (!hevc) {
        cvideo_set_message(message, message_length, "FFmpeg has no HEVC decoder", 0);
        return CVIDEO_UNAVAILABLE;
    }
    cvideo_hevc *decoder = calloc(1, sizeof(*decoder));
    if (!decoder || !(decoder->config = malloc(config_length ? config_length : 1)) ||
        !(decoder->codec = ffmpeg.avcodec_alloc_context3(hevc)) ||
        !(decoder->packet = ffmpeg.av_packet_alloc()) || !(decoder->frame = ffmpeg.av_frame_alloc()) ||
        config_length > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE ||
        !(decoder->codec->extradata = ffmpeg.av_malloc(config_length + AV_INPUT_BUFFER_PADDING_SIZE))) {
        free_decoder(decoder);
        cvideo_set_message(message, message_length, "out of memory", 0);
        return CVIDEO_TOO_LARGE;
    }
    memcpy(decoder->config, config, config_length);
    decoder->config_length = config_length;
    decoder->max_pixels = max_pixels;
    // An `hvcC` record's byte 21 ends with lengthSizeMinusOne; FFmpeg reads it the same way.
    decoder->length_size = config_length > 21 ? (config[21] & 3) + 1 : 4;
    decoder->clean = 1;
    // The configuration record as extradata: FFmpeg reads the parameter sets from it and the
    // NAL units' length size, as for an MP4 track.
    memcpy(decoder->codec->extradata, config, config_length);
    memset(decoder->codec->extradata + config_length, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    decoder->codec->extradata_size = (int)config_length;
    // One thread: a grid's tiles are small, and callers decode several photos at once.
    decoder->codec->thread_count = 1;
    decoder->codec->max_pixels = max_pixels < INT64_MAX ? (int64_t)max_pixels : INT64_MAX;
    // A slice FFmpeg finds damaged fails the picture instead of being skipped: a skipped
    // slice leaves whatever the reused frame buffer held (another tile's pixels), and the
    // caller hands the file to libheif.
    decoder->codec->err_recognition |= AV_EF_EXPLODE;
    decoder->codec->get_buffer2 = black_buffer;
    int error = ffmpeg.avcodec_open2(decoder->codec, hevc, NULL);
    if (error < 0) {
        cvideo_set_message(message, message_length, "FFmpeg rejects the HEVC configuration", error);
        free_decoder(decoder);
        return CVIDEO_CORRUPT;
    }
    *out = decoder;
    return CVIDEO_OK;
}

cvideo_status cvideo_hevc_decode(cvideo_hevc *decoder, const unsigned char *data, size_t length,
                                 cvideo_picture *picture, char *message, size_t message_length) {
    memset(picture, 0, sizeof(*picture));
    if (message && message_length) message[0] = 0;
    if (length == 0 || length > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE) {
        cvideo_set_message(message, message_length, "the picture has no data", 0);
        return CVIDEO_CORRUPT;
    }
    size_t needed = length + AV_INPUT_BUFFER_PADDING_SIZE;
    if (needed > decoder->capacity) {
        unsigned char *grown = realloc(decoder->buffer, needed);
        if (!grown) {
            cvideo_set_message(message, message_length, "out of memory", 0);
            return CVIDEO_TOO_LARGE;
        }
        decoder->buffer = grown;
        decoder->capacity = needed;
    }
    if (!only_pictures(data, length, decoder->length_size)) decoder->clean = 0;
    memcpy(decoder->buffer, data, length);
    memset(decoder->buffer + length, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    ffmpeg.av_frame_unref(decoder->frame);
    // The previous picture's drain left the decoder at its end of stream.
    ffmpeg.avcodec_flush_buffers(decoder->codec);
    decoder->packet->data = decoder->buffer;
    decoder->packet->size = (int)length;
    int error = ffmpeg.avcodec_send_packet(decoder->codec, decoder->packet);
    decoder->packet->data = NULL;
    decoder->packet->size = 0;
    // A still picture comes out at once; draining makes sure of it whatever the stream's
    // reordering says.
    if (error >= 0) error = ffmpeg.avcodec_send_packet(decoder->codec, NULL);
    if (error >= 0) error = ffmpeg.avcodec_receive_frame(decoder->codec, decoder->frame);
    if (error < 0) {
        decoder->clean = 0;
        cvideo_set_message(message, message_length, "FFmpeg cannot decode the HEVC picture", error);
        return CVIDEO_CORRUPT;
    }
    const AVFrame *frame = decoder->frame;
    if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
        decoder->clean = 0;
        cvideo_set_message(message, message_length, "the HEVC picture is damaged", 0);
        return CVIDEO_CORRUPT;
    }
    int shift_x, shift_y;
    switch (frame->format) {
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUV420P: shift_x = 1, shift_y = 1; break;
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUV422P: shift_x = 1, shift_y = 0; break;
    case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUV444P: shift_x = 0, shift_y = 0; break;
    default:
        decoder->clean = 0;
        cvideo_set_message(message, message_length, "the HEVC picture is not 8-bit YCbCr", 0);
        return CVIDEO_NO_VIDEO;
    }
    for (int plane = 0; plane < 3; plane++) {
        picture->planes[plane] = frame->data[plane];
        picture->strides[plane] = frame->linesize[plane];
    }
    picture->width = frame->width;
    picture->height = frame->height;
    picture->chroma_shift_x = shift_x;
    picture->chroma_shift_y = shift_y;
    picture->matrix = (int)frame->colorspace;
    picture->full_range = frame->color_range == AVCOL_RANGE_JPEG;
    return CVIDEO_OK;
}
