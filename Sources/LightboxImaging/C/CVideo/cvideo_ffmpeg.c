#include "cvideo_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

cvideo_ffmpeg_functions ffmpeg;

/// The libraries by the major versions of the headers this target was compiled with: another
/// major version has another ABI. The first two are all a HEIF's tiles need.
static const char *const libraries[] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavdevice.so." AV_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR),
};
#define LIBRARY_COUNT (sizeof(libraries) / sizeof(libraries[0]))
#define CODEC_LIBRARY_COUNT 2
/// All but libavdevice, which only capture needs.
#define FORMAT_LIBRARY_COUNT 4

/// Each stage's libraries, opened and never closed; the codec stage's are set before the full
/// stage starts (it runs the codec stage first).
static void *handles[LIBRARY_COUNT];
static pthread_once_t codec_once = PTHREAD_ONCE_INIT, all_once = PTHREAD_ONCE_INIT, capture_once = PTHREAD_ONCE_INIT;
static int codec_loaded, all_loaded, capture_loaded;
static char codec_failure[512], all_failure[512], capture_failure[512];

/// Opens libraries [first, last). 0 with `failure` set when one is missing.
static int open_libraries(size_t first, size_t last, char *failure, size_t length) {
    for (size_t i = first; i < last; i++) {
        // Local: FFmpeg's symbols stay out of the process's global scope. Lazy: the 96
        // libraries libavcodec brings (x265, librsvg, cairo, ...) bind a function at its first
        // call, not all of their functions now, a good part of what a first HEIF waits for
        // (docs/BENCHMARKS.md, Process start). What this file looks up is looked up
        // at once below, so a missing function is still a clear failure here; only libraries
        // of one install that disagree among themselves (which Debian's versioned dependencies
        // rule out) would now stop the process at the call instead of failing the load.
        handles[i] = dlopen(libraries[i], RTLD_LAZY | RTLD_LOCAL);
        if (!handles[i]) {
            const char *reason = dlerror();
            snprintf(failure, length, "FFmpeg's %s cannot be loaded (%s)", libraries[i], reason ? reason : "no reason given");
            return 0;
        }
    }
    return 1;
}

/// Finds function `name` among the first `search` libraries, or returns from the loading
/// function with `failure` (`failure_length` bytes) saying which is missing.
#define CVIDEO_FFMPEG_FIND(name)                                                                      \
    {                                                                                                 \
        void *symbol = NULL;                                                                          \
        for (size_t i = 0; i < search && !symbol; i++) symbol = dlsym(handles[i], #name);             \
        if (!symbol) {                                                                                \
            snprintf(failure, failure_length, "FFmpeg's libraries have no function %s", #name);      \
            return;                                                                                   \
        }                                                                                             \
        ffmpeg.name = (__typeof__(ffmpeg.name))symbol;                                                \
    }

static void load_codec(void) {
    char *failure = codec_failure;
    size_t failure_length = sizeof(codec_failure), search = CODEC_LIBRARY_COUNT;
    if (!open_libraries(0, CODEC_LIBRARY_COUNT, failure, failure_length)) return;
    CVIDEO_CODEC_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    codec_loaded = 1;
}

static void load_all(void) {
    char *failure = all_failure;
    size_t failure_length = sizeof(all_failure), search = FORMAT_LIBRARY_COUNT;
    pthread_once(&codec_once, load_codec);
    if (!codec_loaded) {
        snprintf(failure, failure_length, "%s", codec_failure);
        return;
    }
    if (!open_libraries(CODEC_LIBRARY_COUNT, FORMAT_LIBRARY_COUNT, failure, failure_length)) return;
    CVIDEO_FORMAT_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    all_loaded = 1;
}

static void load_capture(void) {
    char *failure = capture_failure;
    size_t failure_length = sizeof(capture_failure), search = LIBRARY_COUNT;
    pthread_once(&all_once, load_all);
    if (!all_loaded) {
        snprintf(failure, failure_length, "%s", all_failure);
        return;
    }
    if (!open_libraries(FORMAT_LIBRARY_COUNT, LIBRARY_COUNT, failure, failure_length)) return;
    CVIDEO_CAPTURE_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    ffmpeg.avdevice_register_all();
    ffmpeg.av_log_set_level(AV_LOG_QUIET);
    capture_loaded = 1;
}

int cvideo_load_codec(char *message, size_t length) {
    pthread_once(&codec_once, load_codec);
    if (!codec_loaded && message && length) snprintf(message, length, "%s", codec_failure);
    return codec_loaded;
}

int cvideo_load_capture(char *message, size_t length) {
    pthread_once(&capture_once, load_capture);
    if (!capture_loaded && message && length) snprintf(message, length, "%s", capture_failure);
    return capture_loaded;
}

int cvideo_load_ffmpeg(char *message, size_t length) {
    pthread_once(&all_once, load_all);
    if (!all_loaded && message && length) snprintf(message, length, "%s", all_failure);
    return all_loaded;
}
