#ifndef CVIDEO_INTERNAL_H
#define CVIDEO_INTERNAL_H

#include <stddef.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavdevice/avdevice.h>
#include <libavutil/display.h>
#include <libavutil/time.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

// Shared by the poster frame and the movie editor; not part of the module's interface.

// FFmpeg's libraries are opened on the first movie, not when the process starts. Linked
// normally, Debian's libavformat brings 63 more shared libraries into every process (network
// protocols, subtitle and game-music formats among them), and the dynamic loader's symbol
// look-ups at start walk every one of them: a process that makes one photo's thumbnail spent
// a third of its time there. Each FFmpeg function is called through `ffmpeg`.
//
// A HEIF's tiles need only libavcodec and libavutil (`CVIDEO_CODEC_FUNCTIONS`, loaded by
// `cvideo_load_codec`): libavformat would bring its own libraries, slower to load.
#define CVIDEO_CODEC_FUNCTIONS(F)                                                                                  \
    F(av_max_alloc) F(av_frame_alloc) F(av_frame_free) F(av_frame_unref) F(av_log_set_level) F(av_malloc) F(av_packet_alloc)      \
    F(av_packet_free) F(av_strerror) F(avcodec_alloc_context3) F(avcodec_find_decoder) F(avcodec_flush_buffers)    \
    F(avcodec_default_get_buffer2) F(avcodec_free_context) F(avcodec_open2) F(avcodec_receive_frame) F(avcodec_send_packet)
#define CVIDEO_FORMAT_FUNCTIONS(F)                                                                                 \
    F(av_dict_copy) F(av_dict_free) F(av_dict_set) F(av_dict_set_int) F(av_display_rotation_get)                  \
    F(av_find_best_stream) F(av_frame_get_buffer) F(av_frame_make_writable) F(av_interleaved_write_frame)          \
    F(av_packet_clone) F(av_packet_rescale_ts) F(av_packet_unref) F(av_read_frame) F(av_rescale_q)                 \
    F(av_stream_get_side_data) F(av_write_trailer) F(avcodec_find_encoder) F(avcodec_find_encoder_by_name)         \
    F(avcodec_parameters_copy) F(avcodec_parameters_from_context) F(avcodec_parameters_to_context)                 \
    F(avcodec_receive_packet) F(avcodec_send_frame) F(avformat_alloc_output_context2) F(avformat_close_input)     \
    F(avformat_find_stream_info) F(avformat_free_context) F(avformat_new_stream) F(avformat_open_input)           \
    F(avformat_write_header) F(avio_closep) F(avio_open) F(sws_freeContext) F(sws_getCoefficients)                \
    F(sws_getContext) F(sws_scale) F(sws_setColorspaceDetails) F(av_sample_fmt_is_planar) F(av_channel_layout_copy) \
    F(av_channel_layout_default)
// Capture adds libavdevice (cameras, microphones, FFmpeg's filter graphs as a source) and the
// encoders' and muxers' functions only it calls (`cvideo_load_capture`).
#define CVIDEO_CAPTURE_FUNCTIONS(F)                                                                                \
    F(avdevice_register_all) F(av_find_input_format) F(avformat_alloc_context) F(av_gettime_relative)             \
    F(av_usleep) F(av_channel_layout_uninit)                                                            \
    F(avio_alloc_context) F(avio_context_free) F(av_free)
#define CVIDEO_FFMPEG_FUNCTIONS(F) CVIDEO_CODEC_FUNCTIONS(F) CVIDEO_FORMAT_FUNCTIONS(F) CVIDEO_CAPTURE_FUNCTIONS(F)

typedef struct {
#define CVIDEO_FFMPEG_MEMBER(name) __typeof__(&name) name;
    CVIDEO_FFMPEG_FUNCTIONS(CVIDEO_FFMPEG_MEMBER)
#undef CVIDEO_FFMPEG_MEMBER
} cvideo_ffmpeg_functions;

/// The largest block FFmpeg may allocate at once (`av_max_alloc`; its own default is 2 GB): an
/// index or a table a hostile file sizes fails to open instead of taking the machine's memory.
/// A frame of the largest size decoded (100 MP of 16-bit RGBA) still fits.
#define CVIDEO_MAX_ALLOC ((size_t)1 << 30)

/// FFmpeg's functions, filled by `cvideo_load_ffmpeg`.
extern __attribute__((visibility("hidden"))) cvideo_ffmpeg_functions ffmpeg;

/// Opens FFmpeg's libraries once per process and finds every function `ffmpeg` holds. Returns
/// 1 when they are there; 0 with `message` saying which library or function is missing.
int cvideo_load_ffmpeg(char *message, size_t length);

/// The same for libavcodec and libavutil alone, and the functions of `CVIDEO_CODEC_FUNCTIONS`.
int cvideo_load_codec(char *message, size_t length);

/// The same for capture: every library above and libavdevice, and `CVIDEO_CAPTURE_FUNCTIONS`.
int cvideo_load_capture(char *message, size_t length);

/// Writes `text` into `message`, with FFmpeg's reason for `error` when it is negative.
void cvideo_set_message(char *message, size_t length, const char *text, int error);

/// Degrees clockwise from the stream's display matrix, rounded to a quarter turn: 0, 90, 180
/// or 270.
int cvideo_rotation(const AVStream *stream);

/// A converter of `frame`'s pixels to 8-bit RGB of the same size, with the colour matrix and
/// range the frame states (BT.601 and limited range when it states none, as FFmpeg assumes).
struct SwsContext *cvideo_rgb_converter(const AVFrame *frame);

/// The colour matrix swscale needs for a colour space (BT.601 when unstated).
const int *cvideo_coefficients(enum AVColorSpace space);

/// Sample `index` of `channel` of a decoded audio frame with `channels` channels, as a float
/// from -1 to 1 (NaN and what lies beyond clipped); 0 with `*known` set to 0 for a sample
/// format it does not know.
float cvideo_sample(const AVFrame *frame, int channels, int channel, int index, int *known);

#endif
