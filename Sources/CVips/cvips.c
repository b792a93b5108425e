#define CVIPS_TABLE_ITSELF
#include "CVips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libvips Debian's libvips42 installs (libvips-dev links the same file).
#define CVIPS_LIBRARY "libvips.so.42"

struct cvips_functions cvips_functions;
int cvips_library_open;

static pthread_once_t opened = PTHREAD_ONCE_INIT;
static char failure[512];

static void open_library(void) {
    // Global, as linking it made it: the modules libvips loads later (HEIF, PDF) and the
    // libraries they bring resolve libvips' symbols in it.
    void *library = dlopen(CVIPS_LIBRARY, RTLD_LAZY | RTLD_GLOBAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot open %s (%s): install libvips42", CVIPS_LIBRARY,
                 reason ? reason : "unknown reason");
        return;
    }
#define CVIPS_FIND(name)                                                                         \
    *(void **)&cvips_functions.name = dlsym(library, #name);                                     \
    if (!cvips_functions.name) {                                                                 \
        snprintf(failure, sizeof failure, "%s has no %s: libvips 8.14 or later is needed",       \
                 CVIPS_LIBRARY, #name);                                                          \
        return;                                                                                  \
    }
    CVIPS_FUNCTIONS(CVIPS_FIND)
#undef CVIPS_FIND
    __atomic_store_n(&cvips_library_open, 1, __ATOMIC_RELEASE);
}

void cvips_require_library(void) {
    if (cvips_open_library(NULL, 0)) return;
    fprintf(stderr, "lightbox: %s\n", failure);
    abort();
}

int cvips_open_library(char *message, size_t length) {
    pthread_once(&opened, open_library);
    int ready = __atomic_load_n(&cvips_library_open, __ATOMIC_ACQUIRE);
    if (!ready && message && length > 0) snprintf(message, length, "%s", failure);
    return ready;
}
