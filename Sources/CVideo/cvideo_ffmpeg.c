#include "cvideo_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

cvideo_ffmpeg_functions ffmpeg;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

/// The libraries by the major versions of the headers this target was compiled with: another
/// major version has another ABI.
static const char *const libraries[] = {
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
};
#define LIBRARY_COUNT (sizeof(libraries) / sizeof(libraries[0]))

static void load(void) {
    void *handles[LIBRARY_COUNT];
    for (size_t i = 0; i < LIBRARY_COUNT; i++) {
        // Local: FFmpeg's symbols stay out of the process's global scope. Never closed.
        handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *reason = dlerror();
            snprintf(failure, sizeof(failure), "FFmpeg's %s cannot be loaded (%s)", libraries[i],
                     reason ? reason : "no reason given");
            return;
        }
    }
#define CVIDEO_FFMPEG_FIND(name)                                                                      \
    {                                                                                                 \
        void *symbol = NULL;                                                                          \
        for (size_t i = 0; i < LIBRARY_COUNT && !symbol; i++) symbol = dlsym(handles[i], #name);      \
        if (!symbol) {                                                                                \
            snprintf(failure, sizeof(failure), "FFmpeg's libraries have no function %s", #name);     \
            return;                                                                                   \
        }                                                                                             \
        ffmpeg.name = (__typeof__(ffmpeg.name))symbol;                                                \
    }
    CVIDEO_FFMPEG_FUNCTIONS(CVIDEO_FFMPEG_FIND)
#undef CVIDEO_FFMPEG_FIND
    loaded = 1;
}

int cvideo_load_ffmpeg(char *message, size_t length) {
    pthread_once(&once, load);
    if (!loaded && message && length) snprintf(message, length, "%s", failure);
    return loaded;
}
