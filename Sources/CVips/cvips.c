#define _GNU_SOURCE // pthread_rwlockattr_setkind_np
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

static pthread_rwlock_t decodes;
static pthread_once_t decodes_made = PTHREAD_ONCE_INIT;

static void make_decodes(void) {
    pthread_rwlockattr_t attributes;
    pthread_rwlockattr_init(&attributes);
    // glibc lets new readers in while a writer waits unless told otherwise.
    pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&decodes, &attributes);
    pthread_rwlockattr_destroy(&attributes);
}

void cvips_decodes_share(void) {
    pthread_once(&decodes_made, make_decodes);
    pthread_rwlock_rdlock(&decodes);
}

void cvips_decodes_own(void) {
    pthread_once(&decodes_made, make_decodes);
    pthread_rwlock_wrlock(&decodes);
}

void cvips_decodes_release(void) { pthread_rwlock_unlock(&decodes); }
