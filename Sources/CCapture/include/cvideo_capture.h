#ifndef CVIDEO_CAPTURE_H
#define CVIDEO_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "cvideo.h"

// Capture through FFmpeg's libavdevice and libavformat, opened with dlopen like the rest of
// CVideo: a camera (V4L2), a microphone (ALSA), a synthetic camera (FFmpeg's test pattern and a
// tone) and a movie played at its own pace as if it were a camera; and a recorder that encodes
// frames as they arrive (H.264 and AAC) and keeps the last seconds of packets, so that a Live
// Photo's movie can start before its shutter with memory bounded by the encoded size.

typedef enum {
    /// FFmpeg's `testsrc2` pattern with a clock stamped into each frame, and a 1 kHz tone.
    CCAPTURE_SYNTHETIC = 0,
    /// A Video4Linux2 device (`/dev/videoN`).
    CCAPTURE_V4L2 = 1,
    /// A movie file, delivered at its own pace.
    CCAPTURE_FILE = 2,
    /// An ALSA capture device ("hw:1,0"), sound only.
    CCAPTURE_ALSA = 3,
} ccapture_kind;

typedef struct {
    ccapture_kind kind;
    /// The device node, movie or ALSA device; unused for the synthetic camera.
    const char *path;
    /// The frame size and rate asked for (the synthetic camera's exactly; a V4L2 device's when
    /// it has them, 0 for its default). A movie keeps its own.
    int width, height, rate;
    /// A V4L2 device's format to ask for, as FFmpeg names it ("mjpeg", "yuyv422"); NULL for the
    /// driver's default.
    const char *input_format;
    /// The synthetic camera's tone, or a movie's sound; 0 leaves sound out.
    int with_audio;
    /// The largest frame accepted, in pixels.
    size_t max_pixels;
    /// Microseconds without a frame before a read fails as stalled (0: 5 seconds).
    int64_t stall_us;
} ccapture_source_options;

typedef struct ccapture_source ccapture_source;

typedef struct {
    /// Frames as delivered, 8-bit YCbCr 4:2:0 (limited range, BT.601).
    int width, height;
    /// Frames per second as a fraction.
    int rate_num, rate_den;
    /// 0 and 0 when the source has no sound.
    int sample_rate, channels;
} ccapture_source_info;

typedef enum {
    CCAPTURE_ITEM_END = 0,
    CCAPTURE_ITEM_VIDEO = 1,
    CCAPTURE_ITEM_AUDIO = 2,
} ccapture_item_kind;

/// One frame or run of samples, valid until the next read or the close.
typedef struct {
    ccapture_item_kind kind;
    /// Microseconds since the source's first item.
    int64_t time_us;
    /// Video: planes of Y, Cb and Cr (4:2:0), `width` by `height`.
    const unsigned char *planes[3];
    int strides[3];
    int width, height;
    /// Audio: interleaved samples in [-1, 1], `sample_count` per channel, `channels` of them.
    const float *samples;
    int sample_count;
    int channels;
} ccapture_item;

/// Opens a source. CVIDEO_BUSY when the device is in use, CVIDEO_GONE when it is not there,
/// CVIDEO_UNAVAILABLE when FFmpeg's libraries are missing.
cvideo_status ccapture_open(const ccapture_source_options *options, ccapture_source **source,
                            ccapture_source_info *info, char *message, size_t message_length);

/// The next frame or samples, blocking until they arrive (a movie and the synthetic camera are
/// paced to their own clock). CCAPTURE_ITEM_END at a movie's end; CVIDEO_STALLED when nothing
/// came for the stall time, CVIDEO_GONE when the device vanished, CVIDEO_STOPPED after
/// `ccapture_interrupt`.
cvideo_status ccapture_read(ccapture_source *source, ccapture_item *item, char *message, size_t message_length);

/// Frames the synthetic camera or a movie skipped because their reader fell more than a frame
/// behind (a camera overwrites a frame nobody took); safe from any thread.
long long ccapture_dropped(ccapture_source *source);

/// Makes a blocked or later read return CVIDEO_STOPPED; safe from any thread.
void ccapture_interrupt(ccapture_source *source);

void ccapture_close(ccapture_source *source);

/// The synthetic camera's clock: `value` (milliseconds) written as 32 black or white squares
/// after a white and a black guard square, along the top of a luma plane.
void ccapture_stamp_clock(unsigned char *luma, int stride, int width, int height, uint32_t value);

/// Reads a stamped clock back from a luma plane (a decoded, re-encoded frame). 1 with `value`
/// set; 0 when the guard squares are not there.
int ccapture_read_clock(const unsigned char *luma, int stride, int width, int height, uint32_t *value);

/// Limited-range BT.601 4:2:0 planes to full-range RGB (rows of `out_width * 3` bytes in `rgb`),
/// scaled to `out_width` by `out_height`. 1 when done.
int ccapture_yuv420_to_rgb(const unsigned char *const planes[3], const int strides[3], int width, int height,
                           unsigned char *rgb, int out_width, int out_height);

/// 4:2:0 planes scaled to `out_width` by `out_height` (even) into `out`. 1 when done.
int ccapture_scale_yuv420(const unsigned char *const planes[3], const int strides[3], int width, int height,
                          unsigned char *const out[3], const int out_strides[3], int out_width, int out_height);

typedef struct ccapture_recorder ccapture_recorder;

typedef struct {
    int width, height, rate_num, rate_den;
    /// 0 and 0 for a silent recorder.
    int sample_rate, channels;
    /// x264's constant rate factor (18 to 28 sensible) and speed preset ("veryfast").
    int quality;
    const char *preset;
    /// A keyframe at least this often, in frames: a movie starts on one.
    int keyframe_interval;
    /// Packets older than this many microseconds before the newest are dropped, unless held.
    int64_t keep_us;
} ccapture_recorder_options;

cvideo_status ccapture_recorder_open(const ccapture_recorder_options *options, ccapture_recorder **recorder,
                                     char *message, size_t message_length);

/// Encodes a frame or samples from a source; the packets join the recorder's window.
cvideo_status ccapture_recorder_add(ccapture_recorder *recorder, const ccapture_item *item, char *message,
                                    size_t message_length);

/// Keeps every packet from `time_us` on (on top of the window) until released: a Live Photo
/// whose shutter has been pressed holds its start. Returns a hold number.
int ccapture_recorder_hold(ccapture_recorder *recorder, int64_t time_us);
void ccapture_recorder_release(ccapture_recorder *recorder, int hold);

/// The time of the newest video frame encoded, -1 before the first.
int64_t ccapture_recorder_latest(ccapture_recorder *recorder);

/// Writes a QuickTime movie of the packets from the last keyframe at or before `from_us` to
/// `to_us`, shown from `from_us` (an edit list skips the frames before it); `start_us` receives
/// the time the movie starts at. CVIDEO_WRITE_FAILED with the
/// reason, leaving a partial file for the caller to remove.
cvideo_status ccapture_recorder_write(ccapture_recorder *recorder, const char *path, int64_t from_us, int64_t to_us,
                                      int64_t *start_us, char *message, size_t message_length);

void ccapture_recorder_close(ccapture_recorder *recorder);

/// One format a V4L2 device offers at one size: its FourCC, and its fastest rate.
typedef struct {
    char fourcc[5];
    int width, height;
    int rate_num, rate_den;
} ccapture_v4l2_mode;

/// The device's name (its card) and up to `capacity` modes; the count of modes, or -1 when the
/// node is no video capture device (with `message` saying why).
int ccapture_v4l2_describe(const char *path, char *name, size_t name_length, ccapture_v4l2_mode *modes, int capacity,
                           char *message, size_t message_length);

#endif
