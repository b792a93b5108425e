#include "cvideo.h"
#include "cvideo_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cvideo_set_message(char *message, size_t length, const char *text, int error) {
    if (!message || length == 0) return;
    if (error < 0) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
        ffmpeg.av_strerror(error, reason, sizeof(reason));
        snprintf(message, length, "%s (%s)", text, reason);
    } else {
        snprintf(message, length, "%s", text);
    }
}

int cvideo_rotation(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *matrix = ffmpeg.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    double degrees = ffmpeg.av_display_rotation_get((const int32_t *)matrix);
    if (isnan(degrees)) return 0;
    // av_display_rotation_get is counterclockwise; the frame turns clockwise by its negation.
    int quarter = (int)lround(-degrees / 90.0);
    quarter = ((quarter % 4) + 4) % 4;
    return quarter * 90;
}

const int *cvideo_coefficients(enum AVColorSpace space) {
    return ffmpeg.sws_getCoefficients(space == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)space);
}

float cvideo_sample(const AVFrame *frame, int channels, int channel, int index, int *known) {
    int planar = ffmpeg.av_sample_fmt_is_planar(frame->format);
    const uint8_t *plane = frame->extended_data[planar ? channel : 0];
    size_t at = planar ? (size_t)index : (size_t)index * (size_t)channels + (size_t)channel;
    float value;
    switch (frame->format) {
    case AV_SAMPLE_FMT_S16:
    case AV_SAMPLE_FMT_S16P: value = ((const int16_t *)plane)[at] / 32768.0f; break;
    case AV_SAMPLE_FMT_S32:
    case AV_SAMPLE_FMT_S32P: value = ((const int32_t *)plane)[at] / 2147483648.0f; break;
    case AV_SAMPLE_FMT_FLT:
    case AV_SAMPLE_FMT_FLTP: value = ((const float *)plane)[at]; break;
    case AV_SAMPLE_FMT_DBL:
    case AV_SAMPLE_FMT_DBLP: value = (float)((const double *)plane)[at]; break;
    case AV_SAMPLE_FMT_U8:
    case AV_SAMPLE_FMT_U8P: value = (((const uint8_t *)plane)[at] - 128) / 128.0f; break;
    default: *known = 0; return 0;
    }
    if (!(value >= -1.0f)) value = value > 0 ? 1.0f : -1.0f;  // NaN and below -1
    if (value > 1.0f) value = 1.0f;
    return value;
}

struct SwsContext *cvideo_rgb_converter(const AVFrame *frame) {
    struct SwsContext *converter =
        ffmpeg.sws_getContext(frame->width, frame->height, (enum AVPixelFormat)frame->format, frame->width, frame->height,
                       AV_PIX_FMT_RGB24, SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    if (converter) {
        const int *matrix = cvideo_coefficients(frame->colorspace);
        ffmpeg.sws_setColorspaceDetails(converter, matrix, frame->color_range == AVCOL_RANGE_JPEG, matrix, 1, 0, 1 << 16,
                                 1 << 16);
    }
    return converter;
}

cvideo_status cvideo_poster_frame(const char *path, size_t max_pixels, int max_packets, cvideo_frame *out,
                                  char *message, size_t message_length) {
    memset(out, 0, sizeof(*out));
    if (message && message_length) message[0] = 0;
    if (!cvideo_load_ffmpeg(message, message_length)) return CVIDEO_UNAVAILABLE;
    ffmpeg.av_log_set_level(AV_LOG_QUIET);

    AVFormatContext *format = NULL;
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    struct SwsContext *scaler = NULL;
    cvideo_status status = CVIDEO_OK;

    int error = ffmpeg.avformat_open_input(&format, path, NULL, NULL);
    if (error < 0) {
        cvideo_set_message(message, message_length, "FFmpeg cannot open the movie", error);
        return CVIDEO_UNREADABLE;
    }
    error = ffmpeg.avformat_find_stream_info(format, NULL);
    if (error < 0) {
        cvideo_set_message(message, message_length, "FFmpeg cannot read the movie's streams", error);
        status = CVIDEO_UNREADABLE;
        goto done;
    }
    const AVCodec *decoder = NULL;
    int index = ffmpeg.av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index < 0 || !decoder) {
        cvideo_set_message(message, message_length, "the movie has no video stream FFmpeg can decode", index);
        status = CVIDEO_NO_VIDEO;
        goto done;
    }
    AVStream *stream = format->streams[index];
    codec = ffmpeg.avcodec_alloc_context3(decoder);
    if (!codec || ffmpeg.avcodec_parameters_to_context(codec, stream->codecpar) < 0) {
        cvideo_set_message(message, message_length, "cannot set up the video decoder", -1);
        status = CVIDEO_NO_VIDEO;
        goto done;
    }
    // One thread: callers decode several movies at once, one per core.
    codec->thread_count = 1;
    // A frame larger than the caller reserved memory for is refused before it is allocated.
    codec->max_pixels = max_pixels < INT64_MAX ? (int64_t)max_pixels : INT64_MAX;
    error = ffmpeg.avcodec_open2(codec, decoder, NULL);
    if (error < 0) {
        cvideo_set_message(message, message_length, "cannot open the video decoder", error);
        status = CVIDEO_NO_VIDEO;
        goto done;
    }
    packet = ffmpeg.av_packet_alloc();
    frame = ffmpeg.av_frame_alloc();
    if (!packet || !frame) {
        cvideo_set_message(message, message_length, "out of memory", -1);
        status = CVIDEO_TOO_LARGE;
        goto done;
    }
    int got = 0;
    for (int read = 0; read < max_packets && !got; read++) {
        error = ffmpeg.av_read_frame(format, packet);
        if (error < 0) {
            // The end of the file: drain what the decoder holds.
            ffmpeg.avcodec_send_packet(codec, NULL);
        } else if (packet->stream_index != index) {
            ffmpeg.av_packet_unref(packet);
            continue;
        } else {
            ffmpeg.avcodec_send_packet(codec, packet);
            ffmpeg.av_packet_unref(packet);
        }
        int received = ffmpeg.avcodec_receive_frame(codec, frame);
        if (received == 0) {
            got = 1;
        } else if (error < 0) {
            break;
        }
    }
    if (!got) {
        cvideo_set_message(message, message_length, "no video frame could be decoded", error);
        status = CVIDEO_CORRUPT;
        goto done;
    }
    size_t width = (size_t)frame->width, height = (size_t)frame->height;
    if (width == 0 || height == 0 || width > max_pixels / height) {
        cvideo_set_message(message, message_length, "the video frame is larger than allowed", -1);
        status = CVIDEO_TOO_LARGE;
        goto done;
    }
    scaler = cvideo_rgb_converter(frame);
    if (!scaler) {
        cvideo_set_message(message, message_length, "cannot convert the frame's pixel format to RGB", -1);
        status = CVIDEO_CORRUPT;
        goto done;
    }
    unsigned char *pixels = malloc(width * height * 3);
    if (!pixels) {
        cvideo_set_message(message, message_length, "out of memory for the frame", -1);
        status = CVIDEO_TOO_LARGE;
        goto done;
    }
    uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
    int strides[4] = {(int)(width * 3), 0, 0, 0};
    ffmpeg.sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    out->rotation = cvideo_rotation(stream);

done:
    ffmpeg.sws_freeContext(scaler);
    ffmpeg.av_frame_free(&frame);
    ffmpeg.av_packet_free(&packet);
    ffmpeg.avcodec_free_context(&codec);
    ffmpeg.avformat_close_input(&format);
    return status;
}

void cvideo_free(cvideo_frame *frame) {
    free(frame->pixels);
    frame->pixels = NULL;
}
