#include "cvideo.h"
#include "cvideo_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Everything one edit holds, freed by `finish`.
typedef struct {
    AVFormatContext *in, *out;
    AVCodecContext *decoder, *encoder;
    AVPacket *packet, *encoded;
    AVFrame *frame, *yuv;
    struct SwsContext *to_rgb, *to_yuv;
    unsigned char *rgb;
    int video, audio;          // input stream indexes, -1 for none
    int out_video, out_audio;  // output stream indexes
    int header_written;
    AVPacket **pending;        // audio read before the header could be written
    int pending_count, pending_capacity;
    int64_t frames;
    int quality;
    int rotation;  // degrees clockwise the frames turn to be upright
    char *message;
    size_t message_length;
    // The part kept, in seconds from the video's start (end <= start: to the end), and
    // whether a frame past it was seen.
    double start, end;
    int video_done;
    // The sound re-encoded (a volume other than 1, or a trim): decoded, scaled by `gain`, cut
    // to the samples [sound_start, sound_end) from the video's start, in chunks of the AAC
    // encoder's frame size.
    AVCodecContext *sound_decoder, *sound_encoder;
    AVFrame *sound_frame, *chunk;
    int chunk_size, chunk_filled;
    int channels, rate;
    float gain;
    int64_t sound_start, sound_end;
    int64_t sound_position;  // the next decoded sample's place, from the video's start; -1 until known
    int64_t sound_next;      // the next chunk's time, in samples of the output
} edit;

/// The longest time a trim or a timestamp may name, in seconds (about 11 days): a file's
/// timestamps beyond it are refused before they reach integer arithmetic.
#define MAX_SECONDS 1e6

/// At most this many sound packets wait for the first frame: a movie whose video starts
/// minutes after its sound is refused rather than held in memory.
#define MAX_PENDING 65536

static void finish(edit *e) {
    for (int i = 0; i < e->pending_count; i++) ffmpeg.av_packet_free(&e->pending[i]);
    free(e->pending);
    free(e->rgb);
    ffmpeg.sws_freeContext(e->to_rgb);
    ffmpeg.sws_freeContext(e->to_yuv);
    ffmpeg.av_frame_free(&e->frame);
    ffmpeg.av_frame_free(&e->yuv);
    ffmpeg.av_packet_free(&e->packet);
    ffmpeg.av_packet_free(&e->encoded);
    ffmpeg.avcodec_free_context(&e->decoder);
    ffmpeg.avcodec_free_context(&e->encoder);
    ffmpeg.avcodec_free_context(&e->sound_decoder);
    ffmpeg.avcodec_free_context(&e->sound_encoder);
    ffmpeg.av_frame_free(&e->sound_frame);
    ffmpeg.av_frame_free(&e->chunk);
    if (e->out) {
        if (e->out->pb) ffmpeg.avio_closep(&e->out->pb);
        ffmpeg.avformat_free_context(e->out);
    }
    ffmpeg.avformat_close_input(&e->in);
}

/// Sends the encoder's finished packets to the muxer.
static int drain_encoder(edit *e) {
    for (;;) {
        int error = ffmpeg.avcodec_receive_packet(e->encoder, e->encoded);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return 0;
        if (error < 0) return error;
        ffmpeg.av_packet_rescale_ts(e->encoded, e->encoder->time_base, e->out->streams[e->out_video]->time_base);
        e->encoded->stream_index = e->out_video;
        error = ffmpeg.av_interleaved_write_frame(e->out, e->encoded);
        if (error < 0) return error;
    }
}

/// Opens the encoder for the first edited frame's size and writes the header.
static cvideo_status start_output(edit *e, int width, int height) {
    const AVCodec *codec = ffmpeg.avcodec_find_encoder_by_name("libx264");
    if (!codec) codec = ffmpeg.avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!codec) {
        cvideo_set_message(e->message, e->message_length, "FFmpeg has no H.264 encoder", -1);
        return CVIDEO_WRITE_FAILED;
    }
    AVStream *source = e->in->streams[e->video];
    e->encoder = ffmpeg.avcodec_alloc_context3(codec);
    if (!e->encoder) return CVIDEO_WRITE_FAILED;
    // 4:2:0 needs even sides: an odd last row or column is left out.
    e->encoder->width = width & ~1;
    e->encoder->height = height & ~1;
    e->encoder->pix_fmt = AV_PIX_FMT_YUV420P;
    e->encoder->time_base = source->time_base;
    e->encoder->framerate = source->avg_frame_rate;
    e->encoder->sample_aspect_ratio = (AVRational){1, 1};
    e->encoder->color_range = e->decoder->color_range == AVCOL_RANGE_JPEG ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    e->encoder->colorspace = e->decoder->colorspace;
    e->encoder->color_primaries = e->decoder->color_primaries;
    e->encoder->color_trc = e->decoder->color_trc;
    if (e->out->oformat->flags & AVFMT_GLOBALHEADER) e->encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // Memory over file size: x264's lookahead, macroblock tree and B-frames nearly tripled the
    // peak at 1080p for a file a third smaller, and a Live Photo's movie is 3 seconds long
    // (docs/BENCHMARKS.md, Edits).
    AVDictionary *settings = NULL;
    ffmpeg.av_dict_set(&settings, "preset", "veryfast", 0);
    ffmpeg.av_dict_set(&settings, "x264-params", "threads=2:sync-lookahead=0:rc-lookahead=0:mbtree=0:bframes=0", 0);
    ffmpeg.av_dict_set_int(&settings, "crf", e->quality, 0);
    int error = ffmpeg.avcodec_open2(e->encoder, codec, &settings);
    ffmpeg.av_dict_free(&settings);
    if (error < 0) {
        cvideo_set_message(e->message, e->message_length, "cannot open the H.264 encoder", error);
        return CVIDEO_WRITE_FAILED;
    }
    AVStream *stream = ffmpeg.avformat_new_stream(e->out, NULL);
    if (!stream || ffmpeg.avcodec_parameters_from_context(stream->codecpar, e->encoder) < 0) return CVIDEO_WRITE_FAILED;
    stream->time_base = e->encoder->time_base;
    stream->avg_frame_rate = source->avg_frame_rate;
    ffmpeg.av_dict_copy(&stream->metadata, source->metadata, 0);
    e->out_video = stream->index;
    if (e->audio >= 0) {
        AVStream *sound = ffmpeg.avformat_new_stream(e->out, NULL);
        if (!sound) return CVIDEO_WRITE_FAILED;
        if (e->sound_encoder) {
            if (ffmpeg.avcodec_parameters_from_context(sound->codecpar, e->sound_encoder) < 0) return CVIDEO_WRITE_FAILED;
            sound->time_base = e->sound_encoder->time_base;
        } else {
            if (ffmpeg.avcodec_parameters_copy(sound->codecpar, e->in->streams[e->audio]->codecpar) < 0) {
                return CVIDEO_WRITE_FAILED;
            }
            sound->time_base = e->in->streams[e->audio]->time_base;
        }
        sound->codecpar->codec_tag = 0;
        ffmpeg.av_dict_copy(&sound->metadata, e->in->streams[e->audio]->metadata, 0);
        e->out_audio = sound->index;
    }
    e->yuv = ffmpeg.av_frame_alloc();
    if (!e->yuv) return CVIDEO_WRITE_FAILED;
    e->yuv->format = AV_PIX_FMT_YUV420P;
    e->yuv->width = e->encoder->width;
    e->yuv->height = e->encoder->height;
    if (ffmpeg.av_frame_get_buffer(e->yuv, 0) < 0) return CVIDEO_WRITE_FAILED;
    e->to_yuv = ffmpeg.sws_getContext(e->encoder->width, e->encoder->height, AV_PIX_FMT_RGB24, e->encoder->width,
                               e->encoder->height, AV_PIX_FMT_YUV420P, SWS_BILINEAR | SWS_ACCURATE_RND, NULL, NULL,
                               NULL);
    if (!e->to_yuv) return CVIDEO_WRITE_FAILED;
    const int *matrix = cvideo_coefficients(e->encoder->colorspace);
    ffmpeg.sws_setColorspaceDetails(e->to_yuv, matrix, 1, matrix, e->encoder->color_range == AVCOL_RANGE_JPEG, 0, 1 << 16,
                             1 << 16);
    error = ffmpeg.avformat_write_header(e->out, NULL);
    if (error < 0) {
        cvideo_set_message(e->message, e->message_length, "cannot write the edited movie's header", error);
        return CVIDEO_WRITE_FAILED;
    }
    e->header_written = 1;
    for (int i = 0; i < e->pending_count; i++) {
        ffmpeg.av_packet_rescale_ts(e->pending[i], e->in->streams[e->audio]->time_base, e->out->streams[e->out_audio]->time_base);
        e->pending[i]->stream_index = e->out_audio;
        error = ffmpeg.av_interleaved_write_frame(e->out, e->pending[i]);
        ffmpeg.av_packet_free(&e->pending[i]);
        if (error < 0) return CVIDEO_WRITE_FAILED;
    }
    e->pending_count = 0;
    return CVIDEO_OK;
}

/// One decoded frame: to RGB, through the editor, to YUV, to the encoder.
static cvideo_status edit_frame(edit *e, const cvideo_edit_options *options, cvideo_frame_editor editor,
                                void *context) {
    AVFrame *f = e->frame;
    size_t width = (size_t)f->width, height = (size_t)f->height;
    if (width == 0 || height == 0 || width > options->max_pixels / height) {
        cvideo_set_message(e->message, e->message_length, "a video frame is larger than allowed", -1);
        return CVIDEO_TOO_LARGE;
    }
    if (!e->to_rgb) {
        e->to_rgb = cvideo_rgb_converter(f);
        e->rgb = malloc(width * height * 3);
        if (!e->to_rgb || !e->rgb) {
            cvideo_set_message(e->message, e->message_length, "cannot convert the frames to RGB", -1);
            return CVIDEO_CORRUPT;
        }
    }
    uint8_t *planes[4] = {e->rgb, NULL, NULL, NULL};
    int strides[4] = {(int)(width * 3), 0, 0, 0};
    ffmpeg.sws_scale(e->to_rgb, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    AVStream *source = e->in->streams[e->video];
    int64_t pts = f->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) {
        AVRational rate = source->avg_frame_rate.num > 0 ? source->avg_frame_rate : (AVRational){30, 1};
        pts = ffmpeg.av_rescale_q(e->frames, av_inv_q(rate), source->time_base);
    }
    int64_t origin = source->start_time == AV_NOPTS_VALUE ? 0 : source->start_time;
    double seconds = ((double)pts - (double)origin) * av_q2d(source->time_base);
    if (!(fabs(seconds) < MAX_SECONDS)) {
        cvideo_set_message(e->message, e->message_length, "a video frame's time is beyond any movie's", -1);
        return CVIDEO_CORRUPT;
    }
    // A frame shown before the part kept is left out; one at its end or after ends the video.
    const double slack = 1e-6;
    if (seconds < e->start - slack) return CVIDEO_OK;
    if (e->end > e->start && seconds >= e->end - slack) {
        e->video_done = 1;
        return CVIDEO_OK;
    }
    if (e->start > 0) {
        // Both bounded (seconds and start below MAX_SECONDS, the time base checked at open).
        seconds -= e->start;
        pts = seconds > 0 ? (int64_t)llround(seconds / av_q2d(source->time_base)) : 0;
    }
    cvideo_frame edited = {0};
    if (editor(context, e->rgb, f->width, f->height, e->rotation, seconds, &edited) != 0 ||
        !edited.pixels) {
        free(edited.pixels);
        cvideo_set_message(e->message, e->message_length, "the frame editor stopped", -1);
        return CVIDEO_STOPPED;
    }
    cvideo_status status = CVIDEO_OK;
    if (!e->encoder) status = start_output(e, edited.width, edited.height);
    if (status == CVIDEO_OK && ((edited.width & ~1) != e->encoder->width || (edited.height & ~1) != e->encoder->height)) {
        cvideo_set_message(e->message, e->message_length, "the frame editor changed the frame size during the movie", -1);
        status = CVIDEO_STOPPED;
    }
    if (status == CVIDEO_OK && ffmpeg.av_frame_make_writable(e->yuv) < 0) status = CVIDEO_WRITE_FAILED;
    if (status == CVIDEO_OK) {
        const uint8_t *rows[4] = {edited.pixels, NULL, NULL, NULL};
        int row_bytes[4] = {edited.width * 3, 0, 0, 0};
        ffmpeg.sws_scale(e->to_yuv, rows, row_bytes, 0, e->encoder->height, e->yuv->data, e->yuv->linesize);
        e->yuv->pts = pts;
        int error = ffmpeg.avcodec_send_frame(e->encoder, e->yuv);
        if (error >= 0) error = drain_encoder(e);
        if (error < 0) {
            cvideo_set_message(e->message, e->message_length, "cannot encode the edited frames", error);
            status = CVIDEO_WRITE_FAILED;
        }
    }
    free(edited.pixels);
    e->frames++;
    return status;
}

/// Receives every frame the decoder has ready and edits it.
static cvideo_status drain_decoder(edit *e, const cvideo_edit_options *options, cvideo_frame_editor editor,
                                   void *context) {
    for (;;) {
        int error = ffmpeg.avcodec_receive_frame(e->decoder, e->frame);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return CVIDEO_OK;
        if (error < 0) {
            cvideo_set_message(e->message, e->message_length, "cannot decode a video frame", error);
            return CVIDEO_CORRUPT;
        }
        cvideo_status status = edit_frame(e, options, editor, context);
        ffmpeg.av_frame_unref(e->frame);
        if (status != CVIDEO_OK) return status;
    }
}

/// An audio packet, copied to the output, or kept until the header is written.
static cvideo_status copy_audio(edit *e) {
    e->packet->pos = -1;
    if (e->header_written) {
        ffmpeg.av_packet_rescale_ts(e->packet, e->in->streams[e->audio]->time_base, e->out->streams[e->out_audio]->time_base);
        e->packet->stream_index = e->out_audio;
        return ffmpeg.av_interleaved_write_frame(e->out, e->packet) < 0 ? CVIDEO_WRITE_FAILED : CVIDEO_OK;
    }
    if (e->pending_count >= MAX_PENDING) {
        cvideo_set_message(e->message, e->message_length, "the movie's sound runs far ahead of its first frame", -1);
        return CVIDEO_CORRUPT;
    }
    if (e->pending_count == e->pending_capacity) {
        int capacity = e->pending_capacity ? e->pending_capacity * 2 : 16;
        AVPacket **grown = realloc(e->pending, sizeof(AVPacket *) * (size_t)capacity);
        if (!grown) return CVIDEO_WRITE_FAILED;
        e->pending = grown;
        e->pending_capacity = capacity;
    }
    // Kept in the input's time base: the output's is fixed when the header is written.
    AVPacket *copy = ffmpeg.av_packet_clone(e->packet);
    if (!copy) return CVIDEO_WRITE_FAILED;
    e->pending[e->pending_count++] = copy;
    return CVIDEO_OK;
}

/// Opens the sound's decoder and an AAC encoder of its rate and channels, for a volume other
/// than 1 or a trim.
static cvideo_status start_sound(edit *e, double volume) {
    AVStream *source = e->in->streams[e->audio];
    const AVCodecParameters *parameters = source->codecpar;
    e->channels = parameters->ch_layout.nb_channels;
    e->rate = parameters->sample_rate;
    if (e->channels < 1 || e->channels > 8 || e->rate < 8000 || e->rate > 96000) {
        cvideo_set_message(e->message, e->message_length,
                           "the movie's sound has a channel count or rate Lightbox does not re-encode", -1);
        return CVIDEO_CORRUPT;
    }
    const AVCodec *decoder = ffmpeg.avcodec_find_decoder(parameters->codec_id);
    e->sound_decoder = decoder ? ffmpeg.avcodec_alloc_context3(decoder) : NULL;
    if (!e->sound_decoder || ffmpeg.avcodec_parameters_to_context(e->sound_decoder, parameters) < 0 ||
        ffmpeg.avcodec_open2(e->sound_decoder, decoder, NULL) < 0) {
        cvideo_set_message(e->message, e->message_length, "FFmpeg cannot decode the movie's sound", -1);
        return CVIDEO_CORRUPT;
    }
    e->sound_decoder->pkt_timebase = source->time_base;
    const AVCodec *aac = ffmpeg.avcodec_find_encoder(AV_CODEC_ID_AAC);
    AVCodecContext *encoder = e->sound_encoder = aac ? ffmpeg.avcodec_alloc_context3(aac) : NULL;
    if (!encoder) {
        cvideo_set_message(e->message, e->message_length, "FFmpeg has no AAC encoder", -1);
        return CVIDEO_WRITE_FAILED;
    }
    encoder->sample_rate = e->rate;
    encoder->sample_fmt = AV_SAMPLE_FMT_FLTP;
    if (parameters->ch_layout.order == AV_CHANNEL_ORDER_NATIVE) {
        ffmpeg.av_channel_layout_copy(&encoder->ch_layout, &parameters->ch_layout);
    } else {
        ffmpeg.av_channel_layout_default(&encoder->ch_layout, e->channels);
    }
    // The source's bit rate, within what AAC makes sense of for its channels.
    int64_t rate = parameters->bit_rate > 0 ? parameters->bit_rate : 64000 * (int64_t)e->channels;
    if (rate < 32000 * (int64_t)e->channels) rate = 32000 * (int64_t)e->channels;
    if (rate > 160000 * (int64_t)e->channels) rate = 160000 * (int64_t)e->channels;
    encoder->bit_rate = rate;
    encoder->time_base = (AVRational){1, e->rate};
    if (e->out->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int error = ffmpeg.avcodec_open2(encoder, aac, NULL);
    if (error < 0) {
        cvideo_set_message(e->message, e->message_length, "cannot open the AAC encoder for the sound", error);
        return CVIDEO_WRITE_FAILED;
    }
    e->sound_frame = ffmpeg.av_frame_alloc();
    e->chunk = ffmpeg.av_frame_alloc();
    if (!e->sound_frame || !e->chunk) return CVIDEO_WRITE_FAILED;
    e->chunk->format = AV_SAMPLE_FMT_FLTP;
    e->chunk->nb_samples = e->chunk_size = encoder->frame_size > 0 ? encoder->frame_size : 1024;
    e->chunk->sample_rate = e->rate;
    if (ffmpeg.av_channel_layout_copy(&e->chunk->ch_layout, &encoder->ch_layout) < 0 ||
        ffmpeg.av_frame_get_buffer(e->chunk, 0) < 0) {
        return CVIDEO_WRITE_FAILED;
    }
    e->gain = (float)volume;
    e->sound_start = (int64_t)llround(e->start * e->rate);
    e->sound_end = e->end > e->start ? (int64_t)llround(e->end * e->rate) : INT64_MAX;
    e->sound_position = -1;
    return CVIDEO_OK;
}

/// Sends the sound encoder's finished packets on: to the muxer, or kept (in the source's time
/// base, as copied packets are) until the header is written. It receives into `e->packet`,
/// whose source packet the decoder has taken already.
static cvideo_status drain_sound(edit *e) {
    for (;;) {
        int error = ffmpeg.avcodec_receive_packet(e->sound_encoder, e->packet);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return CVIDEO_OK;
        if (error < 0) {
            cvideo_set_message(e->message, e->message_length, "cannot encode the sound", error);
            return CVIDEO_WRITE_FAILED;
        }
        ffmpeg.av_packet_rescale_ts(e->packet, e->sound_encoder->time_base, e->in->streams[e->audio]->time_base);
        cvideo_status status = copy_audio(e);
        ffmpeg.av_packet_unref(e->packet);
        if (status != CVIDEO_OK) return status;
    }
}

/// Encodes the chunk's `chunk_filled` samples; with none, flushes the encoder.
static cvideo_status encode_chunk(edit *e) {
    int error;
    if (e->chunk_filled > 0) {
        e->chunk->nb_samples = e->chunk_filled;
        e->chunk->pts = e->sound_next;
        e->sound_next += e->chunk_filled;
        e->chunk_filled = 0;
        error = ffmpeg.avcodec_send_frame(e->sound_encoder, e->chunk);
        e->chunk->nb_samples = e->chunk_size;
    } else {
        error = ffmpeg.avcodec_send_frame(e->sound_encoder, NULL);
    }
    if (error < 0) {
        cvideo_set_message(e->message, e->message_length, "cannot encode the sound", error);
        return CVIDEO_WRITE_FAILED;
    }
    return drain_sound(e);
}

/// Decodes a sound packet (NULL: the rest the decoder holds) and moves the samples of the part
/// kept, scaled, into chunks for the encoder.
static cvideo_status decode_sound(edit *e, const AVPacket *packet) {
    int error = ffmpeg.avcodec_send_packet(e->sound_decoder, packet);
    if (error < 0 && error != AVERROR(EAGAIN) && error != AVERROR_EOF) {
        cvideo_set_message(e->message, e->message_length, "cannot decode the movie's sound", error);
        return CVIDEO_CORRUPT;
    }
    for (;;) {
        error = ffmpeg.avcodec_receive_frame(e->sound_decoder, e->sound_frame);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return CVIDEO_OK;
        if (error < 0) {
            cvideo_set_message(e->message, e->message_length, "cannot decode the movie's sound", error);
            return CVIDEO_CORRUPT;
        }
        AVFrame *f = e->sound_frame;
        if (f->ch_layout.nb_channels != e->channels || f->nb_samples < 0 || f->nb_samples > 1 << 20) {
            ffmpeg.av_frame_unref(f);
            cvideo_set_message(e->message, e->message_length, "the movie's sound changes its channels", -1);
            return CVIDEO_CORRUPT;
        }
        if (e->sound_position < 0) {
            // Where the first sample plays, from the video's start: the two stay in step.
            AVStream *video = e->in->streams[e->video], *sound = e->in->streams[e->audio];
            double origin = video->start_time == AV_NOPTS_VALUE ? 0 : video->start_time * av_q2d(video->time_base);
            double at = f->pts == AV_NOPTS_VALUE ? origin : f->pts * av_q2d(sound->time_base);
            if (!(fabs(at - origin) < MAX_SECONDS)) {
                ffmpeg.av_frame_unref(f);
                cvideo_set_message(e->message, e->message_length, "the movie's sound starts beyond any movie's time", -1);
                return CVIDEO_CORRUPT;
            }
            e->sound_position = (int64_t)llround((at - origin) * e->rate);
            e->sound_next = e->sound_position > e->sound_start ? e->sound_position - e->sound_start : 0;
        }
        int known = 1;
        cvideo_status status = CVIDEO_OK;
        for (int i = 0; i < f->nb_samples && status == CVIDEO_OK; i++) {
            int64_t place = e->sound_position + i;
            if (place < e->sound_start || place >= e->sound_end) continue;
            if (e->chunk_filled == 0 && ffmpeg.av_frame_make_writable(e->chunk) < 0) {
                status = CVIDEO_WRITE_FAILED;
                break;
            }
            for (int c = 0; c < e->channels; c++) {
                ((float *)e->chunk->extended_data[c])[e->chunk_filled] =
                    cvideo_sample(f, e->channels, c, i, &known) * e->gain;
            }
            if (++e->chunk_filled == e->chunk_size) status = encode_chunk(e);
        }
        e->sound_position += f->nb_samples;
        ffmpeg.av_frame_unref(f);
        if (!known) {
            cvideo_set_message(e->message, e->message_length, "the movie's sound has an unknown sample format", -1);
            return CVIDEO_CORRUPT;
        }
        if (status != CVIDEO_OK) return status;
    }
}

cvideo_status cvideo_edit_movie(const char *input, const char *output, const cvideo_edit_options *options,
                                cvideo_frame_editor editor, void *context, char *message, size_t message_length) {
    if (message && message_length) message[0] = 0;
    if (!cvideo_load_ffmpeg(message, message_length)) return CVIDEO_UNAVAILABLE;
    ffmpeg.av_log_set_level(AV_LOG_QUIET);
    edit e = {0};
    e.video = e.audio = e.out_video = e.out_audio = -1;
    e.message = message;
    e.message_length = message_length;
    e.quality = options->quality;
    double volume = options->audio_volume;
    if (!(volume >= 0 && volume <= 1) || !(options->start >= 0 && options->start < MAX_SECONDS) ||
        !(options->end > -MAX_SECONDS && options->end < MAX_SECONDS)) {
        cvideo_set_message(message, message_length, "the volume must be from 0 to 1, and the times within a movie's", -1);
        return CVIDEO_STOPPED;
    }
    e.start = options->start;
    e.end = options->end;
    int trimmed = e.start > 0 || e.end > e.start;
    cvideo_status status = CVIDEO_OK;

    int error = ffmpeg.avformat_open_input(&e.in, input, NULL, NULL);
    if (error < 0) {
        cvideo_set_message(message, message_length, "FFmpeg cannot open the movie", error);
        return CVIDEO_UNREADABLE;
    }
    if ((error = ffmpeg.avformat_find_stream_info(e.in, NULL)) < 0) {
        cvideo_set_message(message, message_length, "FFmpeg cannot read the movie's streams", error);
        finish(&e);
        return CVIDEO_UNREADABLE;
    }
    const AVCodec *decoder = NULL;
    e.video = ffmpeg.av_find_best_stream(e.in, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (e.video < 0 || !decoder) {
        cvideo_set_message(message, message_length, "the movie has no video stream FFmpeg can decode", e.video);
        finish(&e);
        return CVIDEO_NO_VIDEO;
    }
    AVRational base = e.in->streams[e.video]->time_base;
    if (base.num <= 0 || base.den <= 0) {
        cvideo_set_message(message, message_length, "the movie's video has no time base", -1);
        finish(&e);
        return CVIDEO_CORRUPT;
    }
    e.rotation = cvideo_rotation(e.in->streams[e.video]);
    if (volume > 0) {
        e.audio = ffmpeg.av_find_best_stream(e.in, AVMEDIA_TYPE_AUDIO, -1, e.video, NULL, 0);
        if (e.audio < 0) e.audio = -1;
    }
    e.decoder = ffmpeg.avcodec_alloc_context3(decoder);
    if (e.decoder) {
        // Each frame thread holds frames of its own: at most four, whatever the machine, so
        // that the memory the caller reserved for the frames holds on any machine.
        e.decoder->thread_count = 4;
        // A frame larger than the caller reserved memory for is refused before it is allocated.
        e.decoder->max_pixels = options->max_pixels < INT64_MAX ? (int64_t)options->max_pixels : INT64_MAX;
    }
    if (!e.decoder || ffmpeg.avcodec_parameters_to_context(e.decoder, e.in->streams[e.video]->codecpar) < 0 ||
        ffmpeg.avcodec_open2(e.decoder, decoder, NULL) < 0) {
        cvideo_set_message(message, message_length, "cannot open the video decoder", -1);
        finish(&e);
        return CVIDEO_NO_VIDEO;
    }
    if ((error = ffmpeg.avformat_alloc_output_context2(&e.out, NULL, "mov", output)) < 0 ||
        (error = ffmpeg.avio_open(&e.out->pb, output, AVIO_FLAG_WRITE)) < 0) {
        cvideo_set_message(message, message_length, "cannot create the edited movie", error);
        finish(&e);
        return CVIDEO_WRITE_FAILED;
    }
    ffmpeg.av_dict_copy(&e.out->metadata, e.in->metadata, 0);
    if (e.audio >= 0 && (volume < 1 || trimmed) && (status = start_sound(&e, volume)) != CVIDEO_OK) {
        finish(&e);
        return status;
    }
    e.packet = ffmpeg.av_packet_alloc();
    e.encoded = ffmpeg.av_packet_alloc();
    e.frame = ffmpeg.av_frame_alloc();
    if (!e.packet || !e.encoded || !e.frame) {
        cvideo_set_message(message, message_length, "out of memory", -1);
        finish(&e);
        return CVIDEO_TOO_LARGE;
    }
    while (status == CVIDEO_OK && ffmpeg.av_read_frame(e.in, e.packet) >= 0) {
        // Past the part kept: nothing more to read once the sound is past it too.
        if (e.video_done && (!e.sound_decoder || e.sound_position >= e.sound_end)) {
            ffmpeg.av_packet_unref(e.packet);
            break;
        }
        if (e.packet->stream_index == e.video && e.video_done) {
            // Frames after the end are not decoded.
        } else if (e.packet->stream_index == e.video) {
            error = ffmpeg.avcodec_send_packet(e.decoder, e.packet);
            if (error < 0 && error != AVERROR(EAGAIN)) {
                cvideo_set_message(message, message_length, "cannot decode the video", error);
                status = CVIDEO_CORRUPT;
            } else {
                status = drain_decoder(&e, options, editor, context);
            }
        } else if (e.packet->stream_index == e.audio) {
            status = e.sound_decoder ? decode_sound(&e, e.packet) : copy_audio(&e);
        }
        ffmpeg.av_packet_unref(e.packet);
    }
    if (status == CVIDEO_OK) {
        ffmpeg.avcodec_send_packet(e.decoder, NULL);
        status = drain_decoder(&e, options, editor, context);
    }
    if (status == CVIDEO_OK && !e.encoder) {
        cvideo_set_message(message, message_length, "no video frame could be decoded", -1);
        status = CVIDEO_CORRUPT;
    }
    if (status == CVIDEO_OK && e.sound_decoder) {
        // The decoder's last samples, the last short chunk, and the encoder's last packets.
        status = decode_sound(&e, NULL);
        if (status == CVIDEO_OK && e.chunk_filled > 0) status = encode_chunk(&e);
        if (status == CVIDEO_OK) status = encode_chunk(&e);
    }
    if (status == CVIDEO_OK) {
        ffmpeg.avcodec_send_frame(e.encoder, NULL);
        if ((error = drain_encoder(&e)) < 0 || (error = ffmpeg.av_write_trailer(e.out)) < 0) {
            cvideo_set_message(message, message_length, "cannot finish the edited movie", error);
            status = CVIDEO_WRITE_FAILED;
        }
    }
    finish(&e);
    return status;
}
