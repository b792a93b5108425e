#include "cvideo_capture.h"
#include "cvideo_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// One opened source: its demuxer, a decoder per stream it delivers, and the frame handed out.
struct ccapture_source {
    ccapture_source_options options;
    AVFormatContext *input;
    int fd;               // a movie's file, read through `io` so that a stalled pipe is noticed
    int is_pipe;          // `fd` is a FIFO: no writer yet (or a gone one) reads as nothing yet
    AVIOContext *io;
    AVCodecContext *video_decoder, *audio_decoder;
    int video, audio;  // stream indexes, -1 for none
    AVPacket *packet;
    AVFrame *frame;
    AVFrame *converted;  // 4:2:0 frames when the source delivers another format or size
    struct SwsContext *to_yuv;
    int to_yuv_width, to_yuv_height, to_yuv_format;
    float *samples;
    int sample_capacity;
    int64_t first_us;       // the first item's time, in the stream's clock
    int64_t started_wall;   // when the first item was delivered, for pacing
    int64_t deadline;       // the current read's stall deadline (av_gettime_relative)
    atomic_int interrupted;
    int draining;           // the demuxer ended: decoders are being flushed
    int64_t frame_us;       // one frame's time at the source's rate
    atomic_llong dropped;   // frames a paced source skipped because the reader fell behind
    int last_dropped;       // the previous frame was skipped: this one is delivered, late or not
    ccapture_source_info info;
};

/// FFmpeg asks this during blocking reads: stop on an interrupt or past the stall deadline.
static int should_stop(void *opaque) {
    ccapture_source *source = opaque;
    if (atomic_load(&source->interrupted)) return 1;
    return source->deadline > 0 && ffmpeg.av_gettime_relative() > source->deadline;
}

/// A movie's bytes for FFmpeg, read from a non-blocking descriptor: a read that would block
/// (a pipe whose writer went quiet) waits in `poll` and gives up on an interrupt or past the
/// stall deadline, which FFmpeg's own file reading, blocked in `read`, never would.
static int read_movie(void *opaque, uint8_t *buffer, int size) {
    ccapture_source *source = opaque;
    for (;;) {
        ssize_t count = read(source->fd, buffer, (size_t)size);
        if (count > 0) return (int)count;
        if (count == 0 && !source->is_pipe) return AVERROR_EOF;
        if (count < 0 && errno == EINTR) continue;
        if (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return AVERROR(errno);
        if (should_stop(source)) return AVERROR_EXIT;
        if (count == 0) {
            // A pipe without a writer: poll would answer at once; wait a little instead.
            ffmpeg.av_usleep(20000);
            continue;
        }
        struct pollfd ready = {.fd = source->fd, .events = POLLIN};
        poll(&ready, 1, 20);
    }
}

static int64_t seek_movie(void *opaque, int64_t offset, int whence) {
    ccapture_source *source = opaque;
    struct stat status;
    if (whence == AVSEEK_SIZE) return fstat(source->fd, &status) == 0 && S_ISREG(status.st_mode) ? status.st_size : -1;
    off_t at = lseek(source->fd, (off_t)offset, whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : at;
}

static cvideo_status status_of(int error) {
    if (error == AVERROR(EBUSY)) return CVIDEO_BUSY;
    if (error == AVERROR(ENOENT) || error == AVERROR(ENODEV) || error == AVERROR(ENXIO) || error == AVERROR(EIO))
        return CVIDEO_GONE;
    return CVIDEO_UNREADABLE;
}

static cvideo_status open_decoder(ccapture_source *source, int index, AVCodecContext **decoder, char *message,
                                  size_t length) {
    AVCodecParameters *parameters = source->input->streams[index]->codecpar;
    const AVCodec *codec = ffmpeg.avcodec_find_decoder(parameters->codec_id);
    if (!codec) {
        cvideo_set_message(message, length, "FFmpeg has no decoder for the source's stream", -1);
        return CVIDEO_NO_VIDEO;
    }
    *decoder = ffmpeg.avcodec_alloc_context3(codec);
    if (!*decoder || ffmpeg.avcodec_parameters_to_context(*decoder, parameters) < 0) return CVIDEO_NO_VIDEO;
    (*decoder)->thread_count = 1;
    (*decoder)->pkt_timebase = source->input->streams[index]->time_base;
    int error = ffmpeg.avcodec_open2(*decoder, codec, NULL);
    if (error < 0) {
        cvideo_set_message(message, length, "cannot open the source's decoder", error);
        return CVIDEO_NO_VIDEO;
    }
    return CVIDEO_OK;
}

cvideo_status ccapture_open(const ccapture_source_options *options, ccapture_source **out, ccapture_source_info *info,
                            char *message, size_t length) {
    *out = NULL;
    if (!cvideo_load_capture(message, length)) return CVIDEO_UNAVAILABLE;
    int width = options->width, height = options->height, rate = options->rate;
    if (width < 0 || height < 0 || rate < 0 || width > 16384 || height > 16384 || rate > 240 ||
        (size_t)width * (size_t)height > options->max_pixels) {
        cvideo_set_message(message, length, "the frame size or rate asked for is out of range", -1);
        return CVIDEO_TOO_LARGE;
    }
    ccapture_source *source = calloc(1, sizeof(*source));
    if (!source) return CVIDEO_UNREADABLE;
    source->options = *options;
    source->video = source->audio = -1;
    source->fd = -1;
    source->first_us = AV_NOPTS_VALUE;
    if (source->options.stall_us <= 0) source->options.stall_us = 5000000;

    const char *format_name = NULL, *url = options->path;
    char graph[256];
    AVDictionary *settings = NULL;
    char text[32];
    switch (options->kind) {
    case CCAPTURE_SYNTHETIC:
        // FFmpeg's filter graph as an input: the pattern (4:2:0, as cameras' encoders take it)
        // and, as a second stream, the tone.
        snprintf(graph, sizeof(graph), "testsrc2=size=%dx%d:rate=%d,format=yuv420p[out0]%s",
                 width ? width : 1280, height ? height : 720, rate ? rate : 30,
                 options->with_audio ? ";sine=frequency=1000:sample_rate=48000[out1]" : "");
        format_name = "lavfi";
        url = graph;
        break;
    case CCAPTURE_V4L2:
        format_name = "video4linux2";
        if (width && height) {
            snprintf(text, sizeof(text), "%dx%d", width, height);
            ffmpeg.av_dict_set(&settings, "video_size", text, 0);
        }
        if (rate) ffmpeg.av_dict_set_int(&settings, "framerate", rate, 0);
        if (options->input_format) ffmpeg.av_dict_set(&settings, "input_format", options->input_format, 0);
        break;
    case CCAPTURE_ALSA:
        format_name = "alsa";
        ffmpeg.av_dict_set_int(&settings, "sample_rate", 48000, 0);
        ffmpeg.av_dict_set_int(&settings, "channels", 1, 0);
        break;
    case CCAPTURE_FILE:
        break;
    }
    const AVInputFormat *format = NULL;
    if (format_name && !(format = ffmpeg.av_find_input_format(format_name))) {
        snprintf(message, length, "FFmpeg was built without its %s input", format_name);
        ffmpeg.av_dict_free(&settings);
        free(source);
        return CVIDEO_UNAVAILABLE;
    }
    source->input = ffmpeg.avformat_alloc_context();
    if (!source->input) {
        ffmpeg.av_dict_free(&settings);
        ccapture_close(source);
        return CVIDEO_UNREADABLE;
    }
    source->input->interrupt_callback = (AVIOInterruptCB){should_stop, source};
    if (options->kind == CCAPTURE_FILE) {
        source->fd = open(url ? url : "", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat status;
        source->is_pipe = source->fd >= 0 && fstat(source->fd, &status) == 0 && S_ISFIFO(status.st_mode);
        unsigned char *buffer = source->fd >= 0 ? ffmpeg.av_malloc(1 << 16) : NULL;
        source->io = buffer ? ffmpeg.avio_alloc_context(buffer, 1 << 16, 0, source, read_movie, NULL, seek_movie) : NULL;
        if (!source->io) {
            int reason = source->fd < 0 ? errno : ENOMEM;
            snprintf(message, length, "cannot open %s (%s)", url ? url : "", strerror(reason));
            if (buffer) ffmpeg.av_free(buffer);
            ffmpeg.avformat_free_context(source->input);
            source->input = NULL;
            ccapture_close(source);
            ffmpeg.av_dict_free(&settings);
            return reason == ENOENT ? CVIDEO_GONE : CVIDEO_UNREADABLE;
        }
        source->input->pb = source->io;
        source->input->flags |= AVFMT_FLAG_CUSTOM_IO;
    } else if (options->kind != CCAPTURE_SYNTHETIC) {
        // A camera or a microphone answers EAGAIN instead of blocking in the driver: the read
        // loop waits for it, and notices a stall or an interrupt.
        source->input->flags |= AVFMT_FLAG_NONBLOCK;
    }
    source->deadline = ffmpeg.av_gettime_relative() + source->options.stall_us;
    int error = ffmpeg.avformat_open_input(&source->input, url ? url : "", format, &settings);
    ffmpeg.av_dict_free(&settings);
    if (error < 0) {
        // FFmpeg freed the context; the rest goes with the source.
        if (error == AVERROR_EXIT) {
            cvideo_set_message(message, length, "the device delivered nothing for too long", -1);
        } else {
            cvideo_set_message(message, length, "cannot open the source", error);
        }
        ccapture_close(source);
        return error == AVERROR_EXIT ? CVIDEO_STALLED : status_of(error);
    }
    cvideo_status status = CVIDEO_OK;
    if (options->kind == CCAPTURE_FILE && (error = ffmpeg.avformat_find_stream_info(source->input, NULL)) < 0) {
        cvideo_set_message(message, length, "cannot read the movie's streams", error);
        status = error == AVERROR_EXIT ? CVIDEO_STALLED : CVIDEO_UNREADABLE;
    }
    if (status == CVIDEO_OK && options->kind != CCAPTURE_ALSA) {
        source->video = ffmpeg.av_find_best_stream(source->input, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (source->video < 0) {
            cvideo_set_message(message, length, "the source has no video", -1);
            status = CVIDEO_NO_VIDEO;
        } else {
            status = open_decoder(source, source->video, &source->video_decoder, message, length);
        }
    }
    if (status == CVIDEO_OK && (options->with_audio || options->kind == CCAPTURE_ALSA)) {
        int audio = ffmpeg.av_find_best_stream(source->input, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
        if (audio >= 0) {
            source->audio = audio;
            status = open_decoder(source, audio, &source->audio_decoder, message, length);
        } else if (options->kind == CCAPTURE_ALSA) {
            cvideo_set_message(message, length, "the microphone delivers no sound", -1);
            status = CVIDEO_NO_VIDEO;
        }
    }
    if (status == CVIDEO_OK) {
        source->packet = ffmpeg.av_packet_alloc();
        source->frame = ffmpeg.av_frame_alloc();
        if (!source->packet || !source->frame) status = CVIDEO_UNREADABLE;
    }
    if (status == CVIDEO_OK && source->video >= 0) {
        AVCodecContext *decoder = source->video_decoder;
        AVStream *stream = source->input->streams[source->video];
        // 4:2:0 needs even sides: an odd last row or column is left out.
        source->info.width = decoder->width & ~1;
        source->info.height = decoder->height & ~1;
        AVRational frame_rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
        // A rate the file states out of any camera's range (none, zero, thousands a second) is
        // taken for 30.
        if (frame_rate.num <= 0 || frame_rate.den <= 0 || frame_rate.num > 240LL * frame_rate.den ||
            frame_rate.num < frame_rate.den)
            frame_rate = (AVRational){30, 1};
        source->info.rate_num = frame_rate.num;
        source->info.rate_den = frame_rate.den;
        source->frame_us = ffmpeg.av_rescale_q(1, (AVRational){frame_rate.den, frame_rate.num}, (AVRational){1, 1000000});
        if (source->info.width < 2 || source->info.height < 2 ||
            (size_t)source->info.width * (size_t)source->info.height > options->max_pixels) {
            cvideo_set_message(message, length, "the source's frames are larger than allowed or empty", -1);
            status = CVIDEO_TOO_LARGE;
        }
    }
    if (status == CVIDEO_OK && source->audio >= 0) {
        AVCodecContext *decoder = source->audio_decoder;
        int channels = decoder->ch_layout.nb_channels;
        if (decoder->sample_rate < 8000 || decoder->sample_rate > 192000 || channels < 1 || channels > 8) {
            cvideo_set_message(message, length, "the source's sound has an unusable rate or channel count", -1);
            status = CVIDEO_UNREADABLE;
        } else {
            source->info.sample_rate = decoder->sample_rate;
            source->info.channels = channels;
        }
    }
    if (status != CVIDEO_OK) {
        ccapture_close(source);
        return status;
    }
    *info = source->info;
    *out = source;
    return CVIDEO_OK;
}

long long ccapture_dropped(ccapture_source *source) { return atomic_load(&source->dropped); }

void ccapture_interrupt(ccapture_source *source) {
    if (source) atomic_store(&source->interrupted, 1);
}

void ccapture_close(ccapture_source *source) {
    if (!source) return;
    ffmpeg.avcodec_free_context(&source->video_decoder);
    ffmpeg.avcodec_free_context(&source->audio_decoder);
    ffmpeg.av_packet_free(&source->packet);
    ffmpeg.av_frame_free(&source->frame);
    ffmpeg.av_frame_free(&source->converted);
    ffmpeg.sws_freeContext(source->to_yuv);
    ffmpeg.avformat_close_input(&source->input);
    if (source->io) {
        ffmpeg.av_free(source->io->buffer);
        ffmpeg.avio_context_free(&source->io);
    }
    if (source->fd >= 0) close(source->fd);
    free(source->samples);
    free(source);
}

/// The frame's time in microseconds since the source's first item; the first item sets zero.
static int64_t item_time(ccapture_source *source, const AVFrame *frame, AVRational time_base) {
    int64_t pts = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp : frame->pts;
    if (pts == AV_NOPTS_VALUE) pts = 0;
    int64_t us = ffmpeg.av_rescale_q(pts, time_base, (AVRational){1, 1000000});
    if (source->first_us == AV_NOPTS_VALUE) source->first_us = us;
    // A file's times may be anything: a difference past int64 is clamped, not wrapped.
    int64_t time;
    if (__builtin_sub_overflow(us, source->first_us, &time)) time = us > source->first_us ? INT64_MAX / 2 : 0;
    if (time > INT64_MAX / 2) time = INT64_MAX / 2;
    return time < 0 ? 0 : time;
}

/// A frame a paced source skips: its reader is more than a frame behind, and a camera would
/// have overwritten it by now.
#define CCAPTURE_LATE (-1)

/// Waits until the item's moment for sources that would run as fast as they decode. A video
/// frame more than a frame late is CCAPTURE_LATE: a camera does not wait for its reader.
static cvideo_status pace(ccapture_source *source, int64_t time_us, int is_video) {
    if (source->options.kind != CCAPTURE_FILE && source->options.kind != CCAPTURE_SYNTHETIC) return CVIDEO_OK;
    int64_t now = ffmpeg.av_gettime_relative();
    if (source->started_wall == 0) source->started_wall = now - time_us;
    int64_t due = source->started_wall + time_us;
    if (is_video) {
        // Never two in a row: a source slower than its own rate (a 4K pattern on a slow
        // machine) still delivers every other frame instead of none.
        if (source->frame_us > 0 && now - due > source->frame_us && !source->last_dropped) {
            source->last_dropped = 1;
            atomic_fetch_add(&source->dropped, 1);
            return (cvideo_status)CCAPTURE_LATE;
        }
        source->last_dropped = 0;
    }
    while (now < due) {
        if (atomic_load(&source->interrupted)) return CVIDEO_STOPPED;
        int64_t wait = due - now;
        ffmpeg.av_usleep((unsigned)(wait > 20000 ? 20000 : wait));
        now = ffmpeg.av_gettime_relative();
    }
    return CVIDEO_OK;
}

/// The decoded video frame as 4:2:0 of the source's size.
static cvideo_status deliver_video(ccapture_source *source, ccapture_item *item, char *message, size_t length) {
    AVFrame *frame = source->frame;
    if (frame->width != source->info.width && frame->width != (source->info.width | 1)) {
        cvideo_set_message(message, length, "the source changed its frame size", -1);
        return CVIDEO_CORRUPT;
    }
    if (frame->height != source->info.height && frame->height != (source->info.height | 1)) {
        cvideo_set_message(message, length, "the source changed its frame size", -1);
        return CVIDEO_CORRUPT;
    }
    AVFrame *out = frame;
    if (frame->format != AV_PIX_FMT_YUV420P) {
        if (!source->to_yuv || source->to_yuv_format != frame->format) {
            ffmpeg.sws_freeContext(source->to_yuv);
            source->to_yuv = ffmpeg.sws_getContext(frame->width, frame->height, frame->format, source->info.width,
                                                   source->info.height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL,
                                                   NULL);
            source->to_yuv_format = frame->format;
            if (!source->to_yuv) {
                cvideo_set_message(message, length, "cannot convert the source's pixel format", -1);
                return CVIDEO_NO_VIDEO;
            }
        }
        if (!source->converted) {
            source->converted = ffmpeg.av_frame_alloc();
            if (!source->converted) return CVIDEO_UNREADABLE;
            source->converted->format = AV_PIX_FMT_YUV420P;
            source->converted->width = source->info.width;
            source->converted->height = source->info.height;
            if (ffmpeg.av_frame_get_buffer(source->converted, 0) < 0) return CVIDEO_UNREADABLE;
        }
        ffmpeg.sws_scale(source->to_yuv, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height,
                         source->converted->data, source->converted->linesize);
        out = source->converted;
    } else if (source->options.kind == CCAPTURE_SYNTHETIC && ffmpeg.av_frame_make_writable(frame) < 0) {
        return CVIDEO_UNREADABLE;
    }
    item->kind = CCAPTURE_ITEM_VIDEO;
    item->time_us = item_time(source, frame, source->input->streams[source->video]->time_base);
    if (source->options.kind == CCAPTURE_SYNTHETIC)
        ccapture_stamp_clock(out->data[0], out->linesize[0], source->info.width, source->info.height,
                             (uint32_t)(item->time_us / 1000));
    for (int i = 0; i < 3; i++) {
        item->planes[i] = out->data[i];
        item->strides[i] = out->linesize[i];
    }
    item->width = source->info.width;
    item->height = source->info.height;
    return pace(source, item->time_us, 1);
}

/// The decoded samples, interleaved floats.
static cvideo_status deliver_audio(ccapture_source *source, ccapture_item *item, char *message, size_t length) {
    AVFrame *frame = source->frame;
    int channels = source->info.channels, count = frame->nb_samples;
    if (frame->ch_layout.nb_channels != channels || count < 0 || count > 1 << 20) {
        cvideo_set_message(message, length, "the source's sound changed its layout", -1);
        return CVIDEO_CORRUPT;
    }
    if (count * channels > source->sample_capacity) {
        float *grown = realloc(source->samples, sizeof(float) * (size_t)count * (size_t)channels);
        if (!grown) return CVIDEO_UNREADABLE;
        source->samples = grown;
        source->sample_capacity = count * channels;
    }
    float *out = source->samples;
    int known = 1;
    for (int c = 0; c < channels; c++) {
        for (int i = 0; i < count; i++) out[i * channels + c] = cvideo_sample(frame, channels, c, i, &known);
    }
    if (!known) {
        cvideo_set_message(message, length, "the source's sound has an unknown sample format", -1);
        return CVIDEO_CORRUPT;
    }
    item->kind = CCAPTURE_ITEM_AUDIO;
    item->time_us = item_time(source, frame, source->input->streams[source->audio]->time_base);
    item->samples = out;
    item->sample_count = count;
    item->channels = channels;
    return pace(source, item->time_us, 0);
}

/// A frame from either decoder, if one is ready.
static int receive(ccapture_source *source, ccapture_item *item, cvideo_status *status, char *message,
                   size_t length) {
    AVCodecContext *decoders[2] = {source->video_decoder, source->audio_decoder};
    for (int i = 0; i < 2; i++) {
        if (!decoders[i]) continue;
        int error = ffmpeg.avcodec_receive_frame(decoders[i], source->frame);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) continue;
        if (error < 0) {
            cvideo_set_message(message, length, "the source's stream cannot be decoded", error);
            *status = CVIDEO_CORRUPT;
            return 1;
        }
        *status = i == 0 ? deliver_video(source, item, message, length) : deliver_audio(source, item, message, length);
        return 1;
    }
    return 0;
}

cvideo_status ccapture_read(ccapture_source *source, ccapture_item *item, char *message, size_t length) {
    memset(item, 0, sizeof(*item));
    ffmpeg.av_frame_unref(source->frame);
    for (;;) {
        if (atomic_load(&source->interrupted)) {
            cvideo_set_message(message, length, "the capture was stopped", -1);
            return CVIDEO_STOPPED;
        }
        cvideo_status status = CVIDEO_OK;
        if (receive(source, item, &status, message, length)) {
            if (status != (cvideo_status)CCAPTURE_LATE) return status;
            memset(item, 0, sizeof(*item));
            ffmpeg.av_frame_unref(source->frame);
            continue;
        }
        if (source->draining) {
            item->kind = CCAPTURE_ITEM_END;
            return CVIDEO_OK;
        }
        source->deadline = ffmpeg.av_gettime_relative() + source->options.stall_us;
        int error = ffmpeg.av_read_frame(source->input, source->packet);
        while (error == AVERROR(EAGAIN)) {
            // A camera or microphone with nothing yet: wait a little, unless stopped or stalled.
            if (should_stop(source)) {
                error = AVERROR_EXIT;
                break;
            }
            ffmpeg.av_usleep(2000);
            error = ffmpeg.av_read_frame(source->input, source->packet);
        }
        if (error == AVERROR_EOF) {
            // The movie ended: flush what the decoders hold, then report the end.
            source->draining = 1;
            if (source->video_decoder) ffmpeg.avcodec_send_packet(source->video_decoder, NULL);
            if (source->audio_decoder) ffmpeg.avcodec_send_packet(source->audio_decoder, NULL);
            continue;
        }
        if (error < 0) {
            if (atomic_load(&source->interrupted)) {
                cvideo_set_message(message, length, "the capture was stopped", -1);
                return CVIDEO_STOPPED;
            }
            if (error == AVERROR_EXIT) {
                cvideo_set_message(message, length, "the device delivered nothing for too long", -1);
                return CVIDEO_STALLED;
            }
            cvideo_set_message(message, length, "the device cannot be read", error);
            return error == AVERROR(ENODEV) || error == AVERROR(EIO) ? CVIDEO_GONE : CVIDEO_UNREADABLE;
        }
        AVCodecContext *decoder = source->packet->stream_index == source->video   ? source->video_decoder
                                  : source->packet->stream_index == source->audio ? source->audio_decoder
                                                                                  : NULL;
        if (decoder) {
            error = ffmpeg.avcodec_send_packet(decoder, source->packet);
            // A damaged packet of a camera's MJPEG stream is dropped, as players do.
            (void)error;
        }
        ffmpeg.av_packet_unref(source->packet);
    }
}

/// The stamp's squares: 2 guards and 32 bits along the top, each `side` pixels.
#define CLOCK_SQUARES 34
static int clock_side(int width, int height) {
    int side = width / (CLOCK_SQUARES + 6);
    if (side > height / 4) side = height / 4;
    return side & ~1;
}

void ccapture_stamp_clock(unsigned char *luma, int stride, int width, int height, uint32_t value) {
    int side = clock_side(width, height);
    if (side < 4) return;
    for (int square = 0; square < CLOCK_SQUARES; square++) {
        int white = square == 0 ? 1 : square == 1 ? 0 : (int)((value >> (31 - (square - 2))) & 1);
        unsigned char level = white ? 235 : 16;
        for (int y = side; y < 2 * side; y++) memset(luma + (size_t)y * stride + (size_t)(square + 1) * side, level, side);
    }
}

/// The mean of the central half of square `square`.
static int square_mean(const unsigned char *luma, int stride, int side, int square) {
    int sum = 0, count = 0;
    for (int y = side + side / 4; y < 2 * side - side / 4; y++) {
        const unsigned char *row = luma + (size_t)y * stride + (size_t)(square + 1) * side;
        for (int x = side / 4; x < side - side / 4; x++, count++) sum += row[x];
    }
    return count ? sum / count : 0;
}

int ccapture_read_clock(const unsigned char *luma, int stride, int width, int height, uint32_t *value) {
    int side = clock_side(width, height);
    if (side < 4) return 0;
    int white = square_mean(luma, stride, side, 0), black = square_mean(luma, stride, side, 1);
    if (white - black < 100) return 0;
    int threshold = (white + black) / 2;
    uint32_t result = 0;
    for (int bit = 0; bit < 32; bit++) result = (result << 1) | (square_mean(luma, stride, side, bit + 2) > threshold);
    *value = result;
    return 1;
}

int ccapture_yuv420_to_rgb(const unsigned char *const planes[3], const int strides[3], int width, int height,
                           unsigned char *rgb, int out_width, int out_height) {
    if (!cvideo_load_capture(NULL, 0) || width < 2 || height < 2 || out_width < 1 || out_height < 1) return 0;
    struct SwsContext *converter = ffmpeg.sws_getContext(width, height, AV_PIX_FMT_YUV420P, out_width, out_height,
                                                         AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND, NULL, NULL,
                                                         NULL);
    if (!converter) return 0;
    ffmpeg.sws_setColorspaceDetails(converter, ffmpeg.sws_getCoefficients(SWS_CS_ITU601), 0,
                                    ffmpeg.sws_getCoefficients(SWS_CS_ITU601), 1, 0, 1 << 16, 1 << 16);
    uint8_t *destination[4] = {rgb, NULL, NULL, NULL};
    int destination_strides[4] = {out_width * 3, 0, 0, 0};
    ffmpeg.sws_scale(converter, (const uint8_t *const *)planes, strides, 0, height, destination, destination_strides);
    ffmpeg.sws_freeContext(converter);
    return 1;
}

int ccapture_scale_yuv420(const unsigned char *const planes[3], const int strides[3], int width, int height,
                          unsigned char *const out[3], const int out_strides[3], int out_width, int out_height) {
    if (!cvideo_load_capture(NULL, 0) || width < 2 || height < 2 || out_width < 2 || out_height < 2) return 0;
    struct SwsContext *scaler = ffmpeg.sws_getContext(width, height, AV_PIX_FMT_YUV420P, out_width, out_height,
                                                      AV_PIX_FMT_YUV420P, SWS_BICUBIC | SWS_ACCURATE_RND, NULL, NULL,
                                                      NULL);
    if (!scaler) return 0;
    ffmpeg.sws_scale(scaler, (const uint8_t *const *)planes, strides, 0, height, (uint8_t *const *)out, out_strides);
    ffmpeg.sws_freeContext(scaler);
    return 1;
}
