#ifndef CVIDEO_H
#define CVIDEO_H

#include <stddef.h>

// Movies through FFmpeg's libraries (libavformat, libavcodec, libswscale), opened with dlopen
// on the first movie: a movie's poster frame, the first frame it shows, as 8-bit RGB with the
// rotation its track asks for; and a movie edited frame by frame (a Live Photo's), re-encoded
// with libx264.

typedef enum {
    CVIDEO_OK = 0,
    /// FFmpeg cannot open or parse the file.
    CVIDEO_UNREADABLE = 1,
    /// The file has no video stream, or no decoder for it.
    CVIDEO_NO_VIDEO = 2,
    /// Decoding failed before a frame came out.
    CVIDEO_CORRUPT = 3,
    /// The frame would be larger than allowed.
    CVIDEO_TOO_LARGE = 4,
    /// The frame editor stopped the edit.
    CVIDEO_STOPPED = 5,
    /// The edited movie could not be encoded or written.
    CVIDEO_WRITE_FAILED = 6,
    /// FFmpeg's libraries (opened on the first movie) are missing or lack a function.
    CVIDEO_UNAVAILABLE = 7,
    /// A capture device is in use by another process.
    CVIDEO_BUSY = 8,
    /// A capture device is not there, or went away.
    CVIDEO_GONE = 9,
    /// A capture device delivered nothing for too long.
    CVIDEO_STALLED = 10,
} cvideo_status;

/// A decoded frame: rows of `width * 3` bytes, RGB. Free with `cvideo_free`.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    /// Degrees clockwise the frame must turn to be upright: 0, 90, 180 or 270.
    int rotation;
} cvideo_frame;

/// Decodes the first frame of the file's main video stream. At most `max_pixels` pixels, and
/// at most `max_packets` packets read before a frame comes out (a damaged file ends there).
cvideo_status cvideo_poster_frame(const char *path, size_t max_pixels, int max_packets, cvideo_frame *frame,
                                  char *message, size_t message_length);

void cvideo_free(cvideo_frame *frame);

/// Called with each frame of a movie being edited, in order: `pixels` are rows of `width * 3`
/// bytes, RGB, as the file stores the frame (turn it by `rotation` degrees clockwise to have it
/// upright), shown at `seconds`. Fills `out` with the edited frame, upright, its pixels from
/// `malloc` (the transcoder frees them), and returns 0; anything else stops the edit.
typedef int (*cvideo_frame_editor)(void *context, const unsigned char *pixels, int width, int height, int rotation,
                                   double seconds, cvideo_frame *out);

typedef struct {
    /// The sound's gain, 0 to 1: 1 copies the sound's packets unchanged (unless trimmed), 0
    /// leaves it out, anything between decodes it, scales every sample and encodes it as AAC.
    double audio_volume;
    /// x264's constant rate factor: 0 lossless, 18 visually lossless, 23 its default.
    int quality;
    /// The largest frame decoded, in pixels.
    size_t max_pixels;
    /// What of the movie is kept, in seconds from its start: frames shown from `start` until
    /// before `end` (`end` <= `start`: to the end). The kept part starts at 0 in the output; a
    /// trimmed movie's sound is re-encoded, cut at the same times to the sample.
    double start, end;
} cvideo_edit_options;

/// Writes to `output` (a QuickTime movie) the main video stream of `input` with every frame
/// passed through `editor`, encoded as H.264 (libx264) with the source's frame times and
/// colour description, upright (no rotation matrix), and the source's container metadata and,
/// per `options`, its sound and the part kept. Returns CVIDEO_OK, or an error with `message`
/// set; then `output` may hold a partial file for the caller to remove.
cvideo_status cvideo_edit_movie(const char *input, const char *output, const cvideo_edit_options *options,
                                cvideo_frame_editor editor, void *context, char *message, size_t message_length);

/// HEVC still pictures decoded one at a time by FFmpeg's decoder, on the calling thread: the
/// tiles of a HEIF grid image, which is how phones store a photo (`CHEIF`).
typedef struct cvideo_hevc cvideo_hevc;

/// A decoded picture's planes as the decoder holds them, valid until the next decode or the
/// close: 8-bit Y, Cb and Cr, the chroma planes `1 << chroma_shift_x` and `1 << chroma_shift_y`
/// times smaller (4:2:0 is 1 and 1, 4:4:4 is 0 and 0), rounded up.
typedef struct {
    const unsigned char *planes[3];
    int strides[3];
    int width;
    int height;
    int chroma_shift_x;
    int chroma_shift_y;
    /// The colour matrix the stream's VUI states (ITU-T H.273 `matrix_coefficients`; 2 when it
    /// states none) and whether it says full range (1) or limited, or states nothing (0).
    int matrix;
    int full_range;
} cvideo_picture;

/// A decoder for pictures that share `config`, an `hvcC` box's contents (the decoder
/// configuration record with the parameter sets), each of at most `max_pixels` coded pixels
/// (FFmpeg refuses larger ones before allocating them). CVIDEO_UNAVAILABLE when FFmpeg's
/// libraries are missing; CVIDEO_CORRUPT when FFmpeg rejects the configuration.
///
/// A decoder closed after clean pictures (no error, no parameter sets of their own) is kept,
/// up to four, and handed out again for the same configuration and limit: every iPhone photo
/// of one kind shares its tiles' configuration, and opening a decoder (its context and first
/// picture buffers, fresh pages) was most of a 256 px thumbnail's page faults.
cvideo_status cvideo_hevc_open(const unsigned char *config, size_t config_length, size_t max_pixels,
                               cvideo_hevc **decoder, char *message, size_t message_length);

/// Decodes one picture: `data` holds its NAL units, each after its length as the configuration
/// says. CVIDEO_CORRUPT when no picture comes out; CVIDEO_NO_VIDEO when it is not 8-bit YCbCr
/// (10-bit, monochrome).
cvideo_status cvideo_hevc_decode(cvideo_hevc *decoder, const unsigned char *data, size_t length,
                                 cvideo_picture *picture, char *message, size_t message_length);

/// Whether closing the decoder would keep it: every picture so far decoded and carried no
/// parameter sets.
int cvideo_hevc_reusable(const cvideo_hevc *decoder);

/// Gives the decoder back: kept for the next open with its configuration, or freed.
void cvideo_hevc_close(cvideo_hevc *decoder);

#endif
