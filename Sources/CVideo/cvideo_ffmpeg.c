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

/// Each stage's libraries, opened and never closed; a stage runs the one before it first.
static void *handles[LIBRARY_COUNT];

/// One stage of loading: run once per process, loaded or failed with the reason.
typedef struct {
    pthread_once_t once;
    void (*load)(void);
    int loaded;
    char failure[512];
} stage;

static void load_codec(void), load_all(void), load_capture(void);
static stage codec_stage = {PTHREAD_ONCE_INIT, load_codec, 0, ""};
static stage all_stage = {PTHREAD_ONCE_INIT, load_all, 0, ""};
static stage capture_stage = {PTHREAD_ONCE_INIT, load_capture, 0, ""};

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

/// Runs the stage `before` (when given), then opens libraries [first, last) for `self`: 0 with
/// `self`'s failure set when either fails.
static int start_stage(stage *self, stage *before, size_t first, size_t last) {
    if (before) {
        pthread_once(&before->once, before->load);
        if (!before->loaded) {
            snprintf(self->failure, sizeof(self->failure), "%s", before->failure);
            return 0;
        }
    }
    return open_libraries(first, last, self->failure, sizeof(self->failure));
}

/// Runs a stage once per process; 1 when loaded, else 0 with `message` saying why.
static int run_stage(stage *self, char *message, size_t length) {
    pthread_once(&self->once, self->load);
    if (!self->loaded && message && length) snprintf(message, length, "%s", self->failure);
    return self->loaded;
}

static void load_codec(void) {
    char *failure = codec_stage.failure;
    size_t failure_length = sizeof(codec_stage.failure), search = CODEC_LIBRARY_COUNT;
    if (!start_stage(&codec_stage, NULL, 0, CODEC_LIBRARY_COUNT)) return;
    CVIDEO_CODEC_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    ffmpeg.av_max_alloc(CVIDEO_MAX_ALLOC);
    codec_stage.loaded = 1;
}

static void load_all(void) {
    char *failure = all_stage.failure;
    size_t failure_length = sizeof(all_stage.failure), search = FORMAT_LIBRARY_COUNT;
    if (!start_stage(&all_stage, &codec_stage, CODEC_LIBRARY_COUNT, FORMAT_LIBRARY_COUNT)) return;
    CVIDEO_FORMAT_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    all_stage.loaded = 1;
}

static void load_capture(void) {
    char *failure = capture_stage.failure;
    size_t failure_length = sizeof(capture_stage.failure), search = LIBRARY_COUNT;
    if (!start_stage(&capture_stage, &all_stage, FORMAT_LIBRARY_COUNT, LIBRARY_COUNT)) return;
    CVIDEO_CAPTURE_FUNCTIONS(CVIDEO_FFMPEG_FIND)
    ffmpeg.avdevice_register_all();
    ffmpeg.av_log_set_level(AV_LOG_QUIET);
    capture_stage.loaded = 1;
}

int cvideo_load_codec(char *message, size_t length) { return run_stage(&codec_stage, message, length); }

int cvideo_load_capture(char *message, size_t length) { return run_stage(&capture_stage, message, length); }

int cvideo_load_ffmpeg(char *message, size_t length) { return run_stage(&all_stage, message, length); }
