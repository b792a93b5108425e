// lightbox-confine: runs one program confined, as Lightbox runs external editors.
//
//   lightbox-confine MEMORY_BYTES SECONDS FILE_BYTES WRITABLE_DIR -- PROGRAM [ARGUMENT...]
//
// - The program may write only beneath WRITABLE_DIR (and /dev/null); it reads and executes
//   anything its user may. Landlock (Linux 5.13 and later, unprivileged) enforces it for the
//   program and every process it starts. Without Landlock the program does not run: status 125.
// - Its processes together may hold MEMORY_BYTES resident: this supervisor is their child
//   subreaper (orphans come back to it rather than to init, setsid or not) and sums the
//   resident memory of all its descendants every 10 ms. Each process also gets RLIMIT_DATA.
// - No file it writes may pass FILE_BYTES (RLIMIT_FSIZE: standard output included).
// - Past SECONDS, past the memory, on SIGTERM (the caller cancels), or when the program exits,
//   every process left is killed and reaped: nothing outlives the run.
//
// The outcome is one line on descriptor 3: "exited N", "signalled N", "timedOut",
// "outOfMemory" or "cancelled", then " peak BYTES". Lightbox's arguments are its own; this
// program reads nothing untrusted but /proc, which the kernel writes.

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t cancelled = 0;
static void on_term(int signal) { (void)signal; cancelled = 1; }

static int parse_size(const char *text, unsigned long long *value) {
    char *end = NULL;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno || end == text || *end) return 0;
    *value = parsed;
    return 1;
}

// The access rights this kernel's Landlock knows, by its ABI version.
static __u64 handled_rights(int abi) {
    __u64 rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                   LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                   LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                   LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                   LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    return rights;
}

static int allow(int ruleset, const char *path, __u64 rights) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct landlock_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    int added = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
    return added;
}

// Restricts this process and its future children: read and execute everywhere, write beneath
// `writable` and to /dev/null. Returns 0, or -1 with a message on standard error.
static int confine(const char *writable) {
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        fprintf(stderr, "lightbox-confine: this kernel has no Landlock (Linux 5.13 or later, enabled): %s\n",
                strerror(errno));
        return -1;
    }
    __u64 all = handled_rights(abi);
    struct landlock_ruleset_attr attributes = {.handled_access_fs = all};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    if (ruleset < 0) {
        fprintf(stderr, "lightbox-confine: cannot make a Landlock ruleset: %s\n", strerror(errno));
        return -1;
    }
    __u64 read = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    __u64 file = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3) file |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    if (allow(ruleset, "/", read) || allow(ruleset, writable, all) || allow(ruleset, "/dev/null", file)) {
        fprintf(stderr, "lightbox-confine: cannot add a Landlock rule for %s: %s\n", writable, strerror(errno));
        close(ruleset);
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, ruleset, 0)) {
        fprintf(stderr, "lightbox-confine: cannot restrict the editor: %s\n", strerror(errno));
        close(ruleset);
        return -1;
    }
    close(ruleset);
    return 0;
}

// The processes of the system, as (pid, parent, resident pages), from /proc/PID/stat.
typedef struct {
    pid_t pid, parent;
    long pages;
} process_info;

static size_t list_processes(process_info **out) {
    size_t count = 0, capacity = 256;
    process_info *list = malloc(capacity * sizeof *list);
    DIR *proc = opendir("/proc");
    if (!list || !proc) {
        free(list);
        if (proc) closedir(proc);
        *out = NULL;
        return 0;
    }
    struct dirent *entry;
    while ((entry = readdir(proc))) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        char path[64], text[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t length = read(fd, text, sizeof text - 1);
        close(fd);
        if (length <= 0) continue;
        text[length] = 0;
        // "pid (comm) state ppid ..." where comm may hold anything: fields after its last ')'.
        char *after = strrchr(text, ')');
        if (!after) continue;
        char state;
        int parent;
        long pages = 0;
        // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        // cutime cstime priority nice threads itrealvalue starttime vsize rss
        if (sscanf(after + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %ld",
                   &state, &parent, &pages) != 3)
            continue;
        if (count == capacity) {
            capacity *= 2;
            process_info *grown = realloc(list, capacity * sizeof *list);
            if (!grown) break;
            list = grown;
        }
        list[count++] = (process_info){.pid = atoi(entry->d_name), .parent = parent, .pages = pages};
    }
    closedir(proc);
    *out = list;
    return count;
}

static int by_parent(const void *a, const void *b) {
    pid_t x = ((const process_info *)a)->parent, y = ((const process_info *)b)->parent;
    return (x > y) - (x < y);
}

// The first index of `list` (sorted by parent) whose parent is `parent`, or `count`.
static size_t first_child(const process_info *list, size_t count, pid_t parent) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (list[middle].parent < parent) low = middle + 1;
        else high = middle;
    }
    return low;
}

// Signals every descendant of this process; returns their resident bytes together. The
// processes are sorted by parent and walked breadth first from this one: n log n, for a
// machine of thousands of processes scanned every 10 ms.
static long long descendants(int signal) {
    process_info *list;
    size_t count = list_processes(&list);
    if (!list) return 0;
    qsort(list, count, sizeof *list, by_parent);
    pid_t *queue = malloc((count + 1) * sizeof *queue);
    long long pages = 0;
    if (queue) {
        size_t head = 0, tail = 0;
        queue[tail++] = getpid();
        while (head < tail) {
            pid_t parent = queue[head++];
            for (size_t i = first_child(list, count, parent); i < count && list[i].parent == parent; i++) {
                if (tail > count) break;  // a cycle /proc cannot show; never walk past the list
                queue[tail++] = list[i].pid;
                pages += list[i].pages;
                if (signal) kill(list[i].pid, signal);
            }
        }
        free(queue);
    }
    free(list);
    return pages * sysconf(_SC_PAGESIZE);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    unsigned long long memory, seconds, file_bytes;
    if (argc < 7 || strcmp(argv[5], "--") || !parse_size(argv[1], &memory) || !parse_size(argv[2], &seconds) ||
        !parse_size(argv[3], &file_bytes)) {
        fprintf(stderr, "usage: lightbox-confine MEMORY_BYTES SECONDS FILE_BYTES WRITABLE_DIR -- PROGRAM [ARGUMENT...]\n");
        return 2;
    }
    const char *writable = argv[4];
    FILE *outcome = fdopen(3, "w");
    if (!outcome) outcome = stderr;
    fcntl(3, F_SETFD, FD_CLOEXEC);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
        fprintf(stderr, "lightbox-confine: cannot become a subreaper: %s\n", strerror(errno));
        return 125;
    }
    struct sigaction term = {.sa_handler = on_term};
    sigaction(SIGTERM, &term, NULL);
    // Whoever started it may have blocked signals (a thread's mask is inherited): the cancel
    // must reach it, and the program must start with none blocked.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "lightbox-confine: cannot fork: %s\n", strerror(errno));
        return 125;
    }
    if (child == 0) {
        signal(SIGTERM, SIG_DFL);
        setpgid(0, 0);
        struct rlimit data = {memory, memory}, size = {file_bytes, file_bytes}, core = {0, 0};
        setrlimit(RLIMIT_DATA, &data);
        setrlimit(RLIMIT_FSIZE, &size);
        setrlimit(RLIMIT_CORE, &core);
        if (confine(writable)) _exit(125);
        execvp(argv[6], argv + 6);
        fprintf(stderr, "lightbox-confine: cannot run %s: %s\n", argv[6], strerror(errno));
        _exit(127);
    }

    const char *ending = NULL;
    int status = 0, exited = 0;
    long long peak = 0;
    double start = now();
    for (;;) {
        int reaped;
        pid_t pid;
        while ((pid = waitpid(-1, &reaped, WNOHANG)) > 0) {
            if (pid == child) {
                status = reaped;
                exited = 1;
            }
        }
        if (pid < 0 && errno == ECHILD) break;  // the program and everything it left are gone
        long long resident = descendants(0);
        if (resident > peak) peak = resident;
        if (!ending) {
            if (cancelled) ending = "cancelled";
            else if (now() - start > (double)seconds) ending = "timedOut";
            else if (resident > (long long)memory) ending = "outOfMemory";
        }
        // Stopped, or the program ended: nothing it started stays.
        if (ending || exited) descendants(SIGKILL);
        usleep(10000);
    }
    if (ending) fprintf(outcome, "%s peak %lld\n", ending, peak);
    else if (WIFEXITED(status)) fprintf(outcome, "exited %d peak %lld\n", WEXITSTATUS(status), peak);
    else fprintf(outcome, "signalled %d peak %lld\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0, peak);
    fclose(outcome);
    return 0;
}
