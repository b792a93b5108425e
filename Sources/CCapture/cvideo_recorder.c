#include "cvideo_capture.h"
#include "cvideo_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOLDS 64

/// Encoders for a source's frames and sound, and the window of their packets (times in
/// microseconds), oldest first.
struct ccapture_recorder {
    ccapture_recorder_options options;
    AVCodecContext *video, *audio;
    AVFrame *picture, *sound;
    AVPacket *encoded;
    int64_t next_audio_us;   // the time of the sound frame being filled
    int sound_filled;        // samples in `sound`
    pthread_mutex_t lock;    // guards the window and the holds
    AVPacket **window;
    int count, capacity;
    int64_t holds[MAX_HOLDS];  // -1 when free
    int64_t latest_us;
};

void ccapture_recorder_close(ccapture_recorder *recorder) {
    if (!recorder) return;
    for (int i = 0; i < recorder->count; i++) ffmpeg.av_packet_free(&recorder->window[i]);
    free(recorder->window);
    ffmpeg.avcodec_free_context(&recorder->video);
    ffmpeg.avcodec_free_context(&recorder->audio);
    ffmpeg.av_frame_free(&recorder->picture);
    ffmpeg.av_frame_free(&recorder->sound);
    ffmpeg.av_packet_free(&recorder->encoded);
    pthread_mutex_destroy(&recorder->lock);
    free(recorder);
}

cvideo_status ccapture_recorder_open(const ccapture_recorder_options *options, ccapture_recorder **out, char *message,
                                     size_t length) {
    *out = NULL;
    if (!cvideo_load_capture(message, length)) return CVIDEO_UNAVAILABLE;
    if (options->width < 2 || options->height < 2 || options->width > 16384 || options->height > 16384 ||
        options->rate_num <= 0 || options->rate_den <= 0 || options->keyframe_interval < 1 || options->keep_us < 0) {
        cvideo_set_message(message, length, "the recorder's size, rate or window is out of range", -1);
        return CVIDEO_TOO_LARGE;
    }
    ccapture_recorder *recorder = calloc(1, sizeof(*recorder));
    if (!recorder) return CVIDEO_WRITE_FAILED;
    recorder->options = *options;
    recorder->latest_us = -1;
    for (int i = 0; i < MAX_HOLDS; i++) recorder->holds[i] = -1;
    pthread_mutex_init(&recorder->lock, NULL);
    cvideo_status status = CVIDEO_WRITE_FAILED;

    const AVCodec *codec = ffmpeg.avcodec_find_encoder_by_name("libx264");
    if (!codec) {
        cvideo_set_message(message, length, "FFmpeg has no H.264 encoder (libx264)", -1);
        goto fail;
    }
    AVCodecContext *video = recorder->video = ffmpeg.avcodec_alloc_context3(codec);
    if (!video) goto fail;
    video->width = options->width & ~1;
    video->height = options->height & ~1;
    video->pix_fmt = AV_PIX_FMT_YUV420P;
    video->time_base = (AVRational){1, 1000000};
    video->framerate = (AVRational){options->rate_num, options->rate_den};
    video->gop_size = options->keyframe_interval;
    video->sample_aspect_ratio = (AVRational){1, 1};
    video->color_range = AVCOL_RANGE_MPEG;
    video->colorspace = AVCOL_SPC_BT470BG;
    // Global headers: the parameter sets go into the movie's sample description, which every
    // movie cut from the window needs, whatever keyframe it starts on.
    video->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *settings = NULL;
    ffmpeg.av_dict_set(&settings, "preset", options->preset ? options->preset : "veryfast", 0);
    // Frames leave the encoder as they arrive (no lookahead, no B-frames): the window's
    // packets are in presentation order, and a frame's packet exists when the next frame comes.
    ffmpeg.av_dict_set(&settings, "tune", "zerolatency", 0);
    ffmpeg.av_dict_set_int(&settings, "crf", options->quality, 0);
    int error = ffmpeg.avcodec_open2(video, codec, &settings);
    ffmpeg.av_dict_free(&settings);
    if (error < 0) {
        cvideo_set_message(message, length, "cannot open the H.264 encoder", error);
        goto fail;
    }
    recorder->picture = ffmpeg.av_frame_alloc();
    recorder->encoded = ffmpeg.av_packet_alloc();
    if (!recorder->picture || !recorder->encoded) goto fail;

    if (options->sample_rate > 0) {
        if (options->sample_rate < 8000 || options->sample_rate > 96000 || options->channels < 1 ||
            options->channels > 2) {
            cvideo_set_message(message, length, "the recorder's sound rate or channels are out of range", -1);
            status = CVIDEO_TOO_LARGE;
            goto fail;
        }
        const AVCodec *aac = ffmpeg.avcodec_find_encoder(AV_CODEC_ID_AAC);
        if (!aac) {
            cvideo_set_message(message, length, "FFmpeg has no AAC encoder", -1);
            goto fail;
        }
        AVCodecContext *audio = recorder->audio = ffmpeg.avcodec_alloc_context3(aac);
        if (!audio) goto fail;
        audio->sample_rate = options->sample_rate;
        audio->sample_fmt = AV_SAMPLE_FMT_FLTP;
        ffmpeg.av_channel_layout_default(&audio->ch_layout, options->channels);
        audio->bit_rate = 64000 * options->channels;
        audio->time_base = (AVRational){1, options->sample_rate};
        audio->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        if ((error = ffmpeg.avcodec_open2(audio, aac, NULL)) < 0) {
            cvideo_set_message(message, length, "cannot open the AAC encoder", error);
            goto fail;
        }
        recorder->sound = ffmpeg.av_frame_alloc();
        if (!recorder->sound) goto fail;
        recorder->sound->format = AV_SAMPLE_FMT_FLTP;
        recorder->sound->nb_samples = audio->frame_size > 0 ? audio->frame_size : 1024;
        recorder->sound->sample_rate = audio->sample_rate;
        ffmpeg.av_channel_layout_default(&recorder->sound->ch_layout, options->channels);
        if (ffmpeg.av_frame_get_buffer(recorder->sound, 0) < 0) goto fail;
        recorder->next_audio_us = AV_NOPTS_VALUE;
    }
    *out = recorder;
    return CVIDEO_OK;
fail:
    ccapture_recorder_close(recorder);
    return status;
}

/// The oldest time the window must keep: `keep_us` before the newest, or an earlier hold.
static int64_t keep_from(const ccapture_recorder *recorder) {
    int64_t from = recorder->latest_us - recorder->options.keep_us;
    for (int i = 0; i < MAX_HOLDS; i++)
        if (recorder->holds[i] >= 0 && recorder->holds[i] < from) from = recorder->holds[i];
    return from;
}

/// Drops packets before the last video keyframe at or before the keep time (sound before it too).
static void trim(ccapture_recorder *recorder) {
    int64_t from = keep_from(recorder);
    int cut = -1;
    for (int i = 0; i < recorder->count; i++) {
        AVPacket *packet = recorder->window[i];
        if (packet->stream_index == 0 && (packet->flags & AV_PKT_FLAG_KEY) && packet->pts <= from) cut = i;
        if (packet->pts > from) break;
    }
    if (cut <= 0) return;
    for (int i = 0; i < cut; i++) ffmpeg.av_packet_free(&recorder->window[i]);
    memmove(recorder->window, recorder->window + cut, sizeof(AVPacket *) * (size_t)(recorder->count - cut));
    recorder->count -= cut;
}

/// Moves the encoder's finished packets into the window (stream 0 video, 1 sound).
static cvideo_status collect(ccapture_recorder *recorder, AVCodecContext *encoder, int stream, char *message,
                             size_t length) {
    for (;;) {
        int error = ffmpeg.avcodec_receive_packet(encoder, recorder->encoded);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return CVIDEO_OK;
        if (error < 0) {
            cvideo_set_message(message, length, "the encoder failed", error);
            return CVIDEO_WRITE_FAILED;
        }
        AVPacket *packet = ffmpeg.av_packet_clone(recorder->encoded);
        ffmpeg.av_packet_unref(recorder->encoded);
        if (!packet) return CVIDEO_WRITE_FAILED;
        packet->stream_index = stream;
        if (stream == 1) {
            // Sound packets in microseconds, like the pictures'.
            packet->pts = ffmpeg.av_rescale_q(packet->pts, encoder->time_base, (AVRational){1, 1000000});
            packet->dts = packet->pts;
            packet->duration = ffmpeg.av_rescale_q(packet->duration, encoder->time_base, (AVRational){1, 1000000});
        }
        pthread_mutex_lock(&recorder->lock);
        if (recorder->count == recorder->capacity) {
            int capacity = recorder->capacity ? recorder->capacity * 2 : 256;
            AVPacket **grown = realloc(recorder->window, sizeof(AVPacket *) * (size_t)capacity);
            if (!grown) {
                pthread_mutex_unlock(&recorder->lock);
                ffmpeg.av_packet_free(&packet);
                return CVIDEO_WRITE_FAILED;
            }
            recorder->window = grown;
            recorder->capacity = capacity;
        }
        // Sound and pictures come from one thread in time order, each stream in its own; keep
        // the window sorted by time so that a cut is one range.
        int at = recorder->count;
        while (at > 0 && recorder->window[at - 1]->pts > packet->pts) at--;
        memmove(recorder->window + at + 1, recorder->window + at, sizeof(AVPacket *) * (size_t)(recorder->count - at));
        recorder->window[at] = packet;
        recorder->count++;
        if (stream == 0 && packet->pts > recorder->latest_us) recorder->latest_us = packet->pts;
        trim(recorder);
        pthread_mutex_unlock(&recorder->lock);
    }
}

cvideo_status ccapture_recorder_add(ccapture_recorder *recorder, const ccapture_item *item, char *message,
                                    size_t length) {
    if (item->kind == CCAPTURE_ITEM_VIDEO) {
        AVFrame *picture = recorder->picture;
        picture->format = AV_PIX_FMT_YUV420P;
        picture->width = recorder->video->width;
        picture->height = recorder->video->height;
        if (item->width < picture->width || item->height < picture->height) {
            cvideo_set_message(message, length, "a frame is smaller than the recorder's", -1);
            return CVIDEO_CORRUPT;
        }
        for (int i = 0; i < 3; i++) {
            picture->data[i] = (uint8_t *)item->planes[i];
            picture->linesize[i] = item->strides[i];
        }
        picture->pts = item->time_us;
        int error = ffmpeg.avcodec_send_frame(recorder->video, picture);
        for (int i = 0; i < 3; i++) picture->data[i] = NULL;
        if (error < 0) {
            cvideo_set_message(message, length, "the H.264 encoder refused a frame", error);
            return CVIDEO_WRITE_FAILED;
        }
        return collect(recorder, recorder->video, 0, message, length);
    }
    if (item->kind != CCAPTURE_ITEM_AUDIO || !recorder->audio) return CVIDEO_OK;
    AVFrame *sound = recorder->sound;
    int channels = recorder->options.channels, rate = recorder->options.sample_rate, given = item->channels;
    if (given < 1) return CVIDEO_OK;
    if (recorder->next_audio_us == AV_NOPTS_VALUE) recorder->next_audio_us = item->time_us;
    for (int i = 0; i < item->sample_count; i++) {
        if (recorder->sound_filled == 0 && ffmpeg.av_frame_make_writable(sound) < 0) return CVIDEO_WRITE_FAILED;
        // The source's first channels (a movie's 5.1 keeps its front left and right; a mono
        // microphone fills both of a stereo recorder's).
        for (int c = 0; c < channels; c++)
            ((float *)sound->data[c])[recorder->sound_filled] = item->samples[i * given + (c < given ? c : given - 1)];
        if (++recorder->sound_filled == sound->nb_samples) {
            sound->pts = ffmpeg.av_rescale_q(recorder->next_audio_us, (AVRational){1, 1000000}, (AVRational){1, rate});
            int error = ffmpeg.avcodec_send_frame(recorder->audio, sound);
            if (error < 0) {
                cvideo_set_message(message, length, "the AAC encoder refused samples", error);
                return CVIDEO_WRITE_FAILED;
            }
            recorder->next_audio_us += (int64_t)sound->nb_samples * 1000000 / rate;
            recorder->sound_filled = 0;
            cvideo_status status = collect(recorder, recorder->audio, 1, message, length);
            if (status != CVIDEO_OK) return status;
        }
    }
    return CVIDEO_OK;
}

int ccapture_recorder_hold(ccapture_recorder *recorder, int64_t time_us) {
    pthread_mutex_lock(&recorder->lock);
    int found = -1;
    for (int i = 0; i < MAX_HOLDS && found < 0; i++)
        if (recorder->holds[i] < 0) found = i;
    if (found >= 0) recorder->holds[found] = time_us < 0 ? 0 : time_us;
    pthread_mutex_unlock(&recorder->lock);
    return found;
}

void ccapture_recorder_release(ccapture_recorder *recorder, int hold) {
    if (hold < 0 || hold >= MAX_HOLDS) return;
    pthread_mutex_lock(&recorder->lock);
    recorder->holds[hold] = -1;
    trim(recorder);
    pthread_mutex_unlock(&recorder->lock);
}

int64_t ccapture_recorder_latest(ccapture_recorder *recorder) {
    pthread_mutex_lock(&recorder->lock);
    int64_t latest = recorder->latest_us;
    pthread_mutex_unlock(&recorder->lock);
    return latest;
}

cvideo_status ccapture_recorder_write(ccapture_recorder *recorder, const char *path, int64_t from_us, int64_t to_us,
                                      int64_t *start_us, char *message, size_t length) {
    // Copies of the packets in range, taken under the lock; the muxing runs outside it.
    pthread_mutex_lock(&recorder->lock);
    int first = -1;
    for (int i = 0; i < recorder->count; i++) {
        AVPacket *packet = recorder->window[i];
        if (packet->stream_index == 0 && (packet->flags & AV_PKT_FLAG_KEY) && (packet->pts <= from_us || first < 0))
            first = i;
        if (packet->pts > from_us && first >= 0) break;
    }
    int taken = 0;
    AVPacket **copies = first >= 0 ? malloc(sizeof(AVPacket *) * (size_t)(recorder->count - first)) : NULL;
    int64_t start = first >= 0 ? recorder->window[first]->pts : 0;
    for (int i = first; copies && i < recorder->count; i++) {
        AVPacket *packet = recorder->window[i];
        if (packet->pts < start || packet->pts > to_us) continue;
        if (!(copies[taken] = ffmpeg.av_packet_clone(packet))) break;
        taken++;
    }
    pthread_mutex_unlock(&recorder->lock);
    if (taken == 0) {
        free(copies);
        cvideo_set_message(message, length, "no frames were recorded for the movie", -1);
        return CVIDEO_WRITE_FAILED;
    }
    // The movie shows from `from_us`: frames between the keyframe and then are decoded but not
    // shown (their times are negative, which the muxer turns into an edit list), so that the
    // movie lasts what was asked whatever the keyframe interval.
    int64_t shown = from_us > start ? from_us : start;
    *start_us = shown;

    cvideo_status status = CVIDEO_WRITE_FAILED;
    AVFormatContext *out = NULL;
    int error = ffmpeg.avformat_alloc_output_context2(&out, NULL, "mov", path);
    if (error < 0 || !out) {
        cvideo_set_message(message, length, "cannot make a QuickTime movie", error);
        goto done;
    }
    AVCodecContext *encoders[2] = {recorder->video, recorder->audio};
    for (int i = 0; i < 2; i++) {
        if (!encoders[i]) continue;
        AVStream *stream = ffmpeg.avformat_new_stream(out, NULL);
        if (!stream || ffmpeg.avcodec_parameters_from_context(stream->codecpar, encoders[i]) < 0) goto done;
        stream->time_base = i == 0 ? (AVRational){1, 600} : (AVRational){1, recorder->options.sample_rate};
        if (i == 0) stream->avg_frame_rate = encoders[i]->framerate;
    }
    if ((error = ffmpeg.avio_open(&out->pb, path, AVIO_FLAG_WRITE)) < 0) {
        cvideo_set_message(message, length, "cannot create the movie file", error);
        goto done;
    }
    // The movie's index (moov) last, as iPhones write it: the metadata Lightbox adds then
    // replaces the end of the file, and the media data is never copied.
    error = ffmpeg.avformat_write_header(out, NULL);
    if (error < 0) {
        cvideo_set_message(message, length, "cannot write the movie's header", error);
        goto done;
    }
    for (int i = 0; i < taken; i++) {
        AVPacket *packet = copies[i];
        if (packet->stream_index == 1 && !recorder->audio) continue;
        // Times from the movie's first shown moment.
        packet->pts -= shown;
        packet->dts -= shown;
        if (packet->stream_index == 1 && packet->pts < 0) continue;  // sound from before it
        AVRational base = out->streams[packet->stream_index]->time_base;
        ffmpeg.av_packet_rescale_ts(packet, (AVRational){1, 1000000}, base);
        error = ffmpeg.av_interleaved_write_frame(out, packet);
        copies[i] = NULL;  // the muxer took the reference (and unreferenced it)
        ffmpeg.av_packet_free(&packet);
        if (error < 0) {
            cvideo_set_message(message, length, "cannot write the movie", error);
            goto done;
        }
    }
    if ((error = ffmpeg.av_write_trailer(out)) < 0) {
        cvideo_set_message(message, length, "cannot finish the movie", error);
        goto done;
    }
    status = CVIDEO_OK;
done:
    for (int i = 0; i < taken; i++) ffmpeg.av_packet_free(&copies[i]);
    free(copies);
    if (out) {
        if (out->pb) ffmpeg.avio_closep(&out->pb);
        ffmpeg.avformat_free_context(out);
    }
    return status;
}
