/* output.c - writing a map to a file, atomically, or to stdout.
 *
 * A failed run never leaves a partial or corrupt output file, and an
 * existing file is only ever replaced by a complete one. So a map goes to a
 * temporary file in the target's directory (same file system, so rename()
 * is atomic), is flushed and fsync'ed, and only then renamed over the
 * target. Any failure, or any signal that ends the process, removes the
 * temporary file.
 */
#define _XOPEN_SOURCE 700 /* POSIX.1-2008 with XSI: realpath */
#if defined(__linux__)
#define _GNU_SOURCE /* sync_file_range */
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "messages.h"

/* The pending temporary files, for the signal handler: static buffers, since
 * the handler may only call async-signal-safe functions (unlink, raise).
 * A batch has up to CLI_MAX_TEMPS files in flight. Only the main thread
 * changes a slot, with the signals blocked, and only the main thread takes
 * the signals (batch worker threads block them), so the handler never sees
 * a slot half-written. */
static char temp_paths[CLI_MAX_TEMPS][4096];
static volatile sig_atomic_t temp_live[CLI_MAX_TEMPS];

/* Every signal whose default action ends the process, so that none leaves
 * a temporary file behind: those another process or a limit sends
 * (blocked while a slot changes and in the pool's threads), then the
 * realtime ones (SIGRTMIN is not a constant), and the faults a bug would
 * raise (never blocked: a blocked fault kills at once). SIGXFSZ is ignored
 * instead (cli_install_signal_handlers). */
static const int cleanup_signals[] = {
    SIGHUP,    SIGINT,  SIGQUIT, SIGTERM,   SIGALRM, SIGUSR1,
    SIGUSR2,   SIGPIPE, SIGXCPU, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
    SIGPOLL,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* AddressSanitizer reports a fault from its own handler: leave the faults
 * to it in a sanitizer build. */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_ASAN 1
#endif
#endif
#ifndef CLI_ASAN
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
#define NFAULTS (sizeof fault_signals / sizeof fault_signals[0])
#endif

static void on_signal(int sig)
{
    for (int i = 0; i < CLI_MAX_TEMPS; i++)
        if (temp_live[i])
            unlink(temp_paths[i]);
    /* SA_RESETHAND has restored the default action: dying by the same
     * signal tells the parent (a shell, make) what happened. */
    raise(sig);
}

static void signal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(set, cleanup_signals[i]);
#ifdef SIGRTMIN
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        sigaddset(set, sig);
#endif
}

/* Installs the handler for sig, unless our parent had it ignored (nohup,
 * a shell's trap '' SIG): an ignored signal stays ignored. */
static void handle(int sig, const struct sigaction *sa)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    sigaction(sig, sa, NULL);
}

void cli_install_signal_handlers(void)
{
    /* `ulimit -f`: past the limit the kernel sends SIGXFSZ, whose default
     * action would kill the tool and leave the temporary file behind.
     * Ignored, the write fails with EFBIG, which is reported and cleaned
     * up like any failed write. */
    signal(SIGXFSZ, SIG_IGN);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND; /* an unsigned constant in glibc */
    signal_set(&sa.sa_mask);

    for (size_t i = 0; i < NSIGNALS; i++)
        handle(cleanup_signals[i], &sa);
#ifdef SIGRTMIN
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        handle(sig, &sa);
#endif
#ifndef CLI_ASAN
    for (size_t i = 0; i < NFAULTS; i++)
        handle(fault_signals[i], &sa);
#endif
}

/* Creating or removing the temporary file and publishing its name must not
 * be split by a signal, or the handler would miss the file or remove a
 * name that is no longer ours. */
static void block_signals(sigset_t *old)
{
    sigset_t set;
    signal_set(&set);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* While the main thread holds the signals (cli_output_hold_signals), the
 * file operations below skip their own block and restore: two system calls
 * a creation and two a rename, which in a batch of small files were about a
 * tenth of each file's cost. */
static int held;
static sigset_t held_old;

static void guard(sigset_t *old)
{
    if (!held)
        block_signals(old);
}

static void unguard(const sigset_t *old)
{
    if (!held)
        restore_signals(old);
}

void cli_output_hold_signals(void)
{
    if (!held)
        block_signals(&held_old);
    held = 1;
}

void cli_output_release_signals(void)
{
    if (held) {
        held = 0;
        restore_signals(&held_old);
    }
}

static void remove_temp(int slot)
{
    sigset_t old;
    /* Only the main thread changes a slot: one already free needs no
     * block. */
    if (!temp_live[slot])
        return;
    guard(&old);
    if (temp_live[slot]) {
        unlink(temp_paths[slot]);
        temp_live[slot] = 0;
    }
    unguard(&old);
}

void cli_block_signals(sigset_t *old)
{
    block_signals(old);
}

void cli_restore_signals(const sigset_t *old)
{
    restore_signals(old);
}

/* ---------------------------------------------------------------- output */

static int report(const struct cli_output *out, const char *why)
{
    if (out->path)
        cli_error("cannot write '%s': %s", out->path, why);
    else
        cli_error("cannot write to standard output: %s", why);
    return CLI_EXIT_FAILURE;
}

static int fail(struct cli_output *out, int err)
{
    cli_output_abort(out);
    /* A closed pipe (`cavegen | head -1` with SIGPIPE ignored) is the
     * reader's choice, not an error worth a message. */
    if (!out->path && err == EPIPE)
        return CLI_EXIT_FAILURE;
    return report(out, strerror(err));
}

int cli_same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
    return na == nb && memcmp(a, b, na) == 0;
}

/* What a batch asks of the folder of every file, asked once per folder:
 * the longest file name it takes (pathconf: a statfs each time), and
 * whether it lives in RAM (tmpfs, ramfs), where starting a file's
 * writeback is a system call that does nothing. The last folder's answer is
 * kept. */
struct folder {
    char dir[PATH_MAX];
    long name_max; /* 0: nothing kept yet */
    int in_ram;
};
static struct folder last_folder;

static const struct folder *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dir = ".";
    char buf[PATH_MAX];
    static struct folder unknown = {"", NAME_MAX, 0};
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof buf)
            return &unknown; /* the path is too long anyway */
        memcpy(buf, path, n);
        buf[n] = '\0';
        dir = buf;
    }
    if (last_folder.name_max > 0 && strcmp(dir, last_folder.dir) == 0)
        return &last_folder;
    long max = pathconf(dir, _PC_NAME_MAX);
    last_folder.name_max = max > 0 ? max : NAME_MAX;
    last_folder.in_ram = 0;
#if defined(__linux__)
    struct statfs fs;
    if (statfs(dir, &fs) == 0)
        last_folder.in_ram = (unsigned long)fs.f_type == 0x01021994ul /* TMPFS_MAGIC */ ||
                             (unsigned long)fs.f_type == 0x858458f6ul /* RAMFS_MAGIC */;
#endif
    strcpy(last_folder.dir, dir);
    return &last_folder;
}

/* The six characters that end a temporary file's name: random enough that
 * two runs writing into one folder rarely meet (a name taken is drawn
 * again, as mkstemp does), from splitmix64 seeded once with the time, the
 * process id and an address. */
static void temp_suffix(char *x)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static uint64_t state;
    if (!state) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        state = ((uint64_t)ts.tv_sec << 30 ^ (uint64_t)ts.tv_nsec) ^
                (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)&state;
        state |= 1;
    }
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    for (int i = 0; i < 6; i++, z >>= 10)
        x[i] = chars[(z & 1023) % 62];
}

#if defined(__linux__)
/* The temporary file's stream writes straight to its descriptor
 * (fopencookie): fdopen would ask the descriptor's flags (an fcntl) for a
 * file we have just opened for writing. Short writes and EINTR are
 * retried; a failure returns 0 with errno set, which the stream keeps as
 * its error. */
static ssize_t fd_write(void *cookie, const char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return 0;
        }
        done += (size_t)k;
    }
    return (ssize_t)done;
}

static int fd_close(void *cookie)
{
    return close((int)(intptr_t)cookie);
}

static FILE *stream_of(int fd)
{
    cookie_io_functions_t io = {.read = NULL, .write = fd_write, .seek = NULL, .close = fd_close};
    return fopencookie((void *)(intptr_t)fd, "wb", io);
}
#else
static FILE *stream_of(int fd)
{
    return fdopen(fd, "wb");
}
#endif

/* Creates "DIR/.NAME.XXXXXX" beside target, as mkstemp would (O_EXCL, a new
 * name while one is taken) but with the final mode from the start. old: the
 * file it replaces, or NULL for a new one. */
static int open_temp(struct cli_output *out, const struct stat *old_file)
{
    const char *slash = strrchr(out->target, '/');
    const char *name = slash ? slash + 1 : out->target;
    int dirlen = slash ? (int)(slash - out->target + 1) : 0;
    /* Keep the name well under NAME_MAX once ".", ".XXXXXX" are added. */
    int namelen = strlen(name) > 200 ? 200 : (int)strlen(name);
    sigset_t old;
    int fd = -1, n, err = 0, slot = -1;
    /* A new map gets the mode a new file gets: the kernel applies the
     * umask (or the folder's default ACL) to 0666, as for any file
     * created. One that replaces a file is created private (0600) and
     * then given the old file's permissions, and its owner and group where
     * we may (below), so a private map stays private. */
    mode_t create_mode = old_file ? 0600 : 0666;

    guard(&old);
    for (int i = 0; i < CLI_MAX_TEMPS && slot < 0; i++)
        if (!temp_live[i])
            slot = i;
    char *temp_path = slot >= 0 ? temp_paths[slot] : NULL;
    n = temp_path ? snprintf(temp_path, sizeof temp_paths[0], "%.*s.%.*s.XXXXXX", dirlen,
                             out->target, namelen, name)
                  : -1;
    if (slot < 0) {
        err = EMFILE; /* the batch keeps fewer files in flight than this */
    } else if (n < 0 || (size_t)n >= sizeof temp_paths[0]) {
        err = ENAMETOOLONG;
    } else {
        /* mkstemp's number of tries (glibc: 62^3). */
        for (long tries = 0; fd < 0 && tries < 238328; tries++) {
            temp_suffix(temp_path + n - 6);
            fd = open(temp_path, O_RDWR | O_CREAT | O_EXCL, create_mode);
            if (fd < 0 && errno != EEXIST)
                break;
        }
        if (fd < 0) {
            err = errno;
        } else {
            temp_live[slot] = 1;
            out->slot = slot;
        }
    }
    unguard(&old);
    if (fd < 0)
        return fail(out, err);

    /* The owner first: fchown may clear bits. */
    if (old_file) {
        if ((old_file->st_uid != geteuid() || old_file->st_gid != getegid()) &&
            fchown(fd, old_file->st_uid, old_file->st_gid) != 0 &&
            fchown(fd, (uid_t)-1, old_file->st_gid) != 0) {
            /* Not permitted: the map is ours, with the old permissions. */
        }
        if (fchmod(fd, old_file->st_mode & 0777) != 0) {
            err = errno;
            close(fd);
            return fail(out, err);
        }
    }
    out->fp = stream_of(fd);
    if (!out->fp) {
        err = errno;
        close(fd);
        return fail(out, err);
    }
    /* A buffer of our own: with none, stdio asks the file's block size
     * (an fstat) at the first write. */
    out->iobuf = malloc(BUFSIZ);
    if (out->iobuf)
        setvbuf(out->fp, out->iobuf, _IOFBF, BUFSIZ);
    out->atomic = 1;
    out->fd = fd;
    out->in_ram = folder_of(out->target)->in_ram;
    return CLI_EXIT_OK;
}

/* What would make the final rename over target fail, checked now so that a
 * long run does not end on it (the temporary file's creation checks the
 * folder): a name too long for the folder, a path too long, or a file in a
 * sticky folder (/tmp) that another user owns. st: the target's, or NULL
 * when it does not exist yet. Returns 0 or an errno value. */
static int check_rename(const char *target, const struct stat *st)
{
    const char *slash = strrchr(target, '/');
    const char *name = slash ? slash + 1 : target;
    if (strlen(target) >= PATH_MAX || (long)strlen(name) > folder_of(target)->name_max)
        return ENAMETOOLONG;
    if (st && geteuid() != 0 && st->st_uid != geteuid()) {
        struct stat dir;
        size_t n = slash ? (slash == target ? 1 : (size_t)(slash - target)) : 1;
        char *d = malloc(n + 1);
        if (!d)
            return ENOMEM;
        memcpy(d, slash ? target : ".", n);
        d[n] = '\0';
        int sticky = stat(d, &dir) == 0 && (dir.st_mode & S_ISVTX) && dir.st_uid != geteuid();
        free(d);
        if (sticky)
            return EPERM;
    }
    return 0;
}

/* An output whose symbolic link cannot be followed. */
static int fail_link(struct cli_output *out, int err)
{
    char why[256];
    cli_output_abort(out);
    snprintf(why, sizeof why, "it is a symbolic link that cannot be followed (%s)", strerror(err));
    return report(out, why);
}

int cli_output_open(struct cli_output *out, const char *path)
{
    struct stat st;
    int err;

    memset(out, 0, sizeof *out);
    out->slot = -1;
    if (!path || strcmp(path, "-") == 0) {
        out->fp = stdout;
        return CLI_EXIT_OK;
    }
    out->path = path;
    out->target = path;

    if (!path[0])
        return fail(out, ENOENT);
    if (path[strlen(path) - 1] == '/')
        return fail(out, EISDIR);

    /* A symbolic link is written through (docs/cli.md): the file it points
     * to is replaced, or written in place if it is a device or a FIFO, and
     * the link is kept. A link the kernel follows to something with no
     * path (/dev/stdout on a pipe, a socket or a deleted file: /proc's
     * "pipe:[N]") is written in place, as the kernel opens it. A link that
     * cannot be followed - dangling, a loop, a folder on its way missing or
     * closed to us, /dev/stdout with standard output closed - is refused:
     * replacing it with a file would destroy the link, and guessing where
     * it meant to point could write anywhere (as root, into /dev). */
    int found = lstat(path, &st) == 0, lerr = found ? 0 : errno;
    if (found && S_ISLNK(st.st_mode)) {
        out->resolved = realpath(path, NULL);
        if (!out->resolved) {
            err = errno;
            if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
                return fail_link(out, err);
            out->fp = fopen(path, "wb");
            return out->fp ? CLI_EXIT_OK : fail(out, errno);
        }
        out->target = out->resolved;
        found = stat(out->target, &st) == 0;
        lerr = found ? 0 : errno;
    } else if (!found && lerr != ENOENT) {
        /* Ask again following links, for the error stat gives. */
        found = stat(out->target, &st) == 0;
        lerr = found ? 0 : errno;
    }
    /* Not a link: lstat said what stat would (a missing name is missing to
     * both), so a batch's new file costs one look-up, not two. */
    if (found) {
        if (S_ISDIR(st.st_mode))
            return fail(out, EISDIR);
        /* A device or a FIFO (/dev/null, /dev/stdout, a named pipe) cannot
         * be renamed over; it is written in place. */
        if (!S_ISREG(st.st_mode)) {
            out->fp = fopen(out->target, "wb");
            return out->fp ? CLI_EXIT_OK : fail(out, errno);
        }
        /* rename() would replace a file we may not write; refuse as an
         * ordinary open would. */
        if (access(out->target, W_OK) != 0)
            return fail(out, errno);
        if ((err = check_rename(out->target, &st)) != 0)
            return fail(out, err);
        return open_temp(out, &st);
    }
    /* Only a missing file is created; any other failure (a loop, a file
     * where a folder should be, no search permission) is reported. */
    if (lerr != ENOENT)
        return fail(out, lerr);
    if ((err = check_rename(out->target, NULL)) != 0)
        return fail(out, err);
    return open_temp(out, NULL);
}

/* Makes the rename itself durable; some file systems cannot sync a
 * directory, and the map is already complete, so errors are ignored. */
void cli_sync_directory(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = NULL;
    int fd;

    if (slash) {
        size_t n = slash == target ? 1 : (size_t)(slash - target);
        dir = malloc(n + 1);
        if (!dir)
            return;
        memcpy(dir, target, n);
        dir[n] = '\0';
    }
    fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int cli_output_flush(struct cli_output *out)
{
    FILE *fp = out->fp;

    if (!fp || fp == stdout)
        return out->err;
    errno = 0;
    if (fflush(fp) != 0 || ferror(fp)) {
        if (!out->err)
            out->err = errno ? errno : EIO;
        return out->err;
    }
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    /* Start the writeback now, while the next maps are made: the sync of
     * the round's files (cli_output_sync_all, or one fsync after the
     * other) then finds most of their data written. An error here is left
     * for the sync to report. */
    if (out->atomic && !out->in_ram)
        (void)sync_file_range(out->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    return out->err;
}

#if defined(__linux__)
/* Whether the running kernel is Linux 5.8 or later, asked once. */
static int syncfs_reports_errors(void)
{
    static int known = -1;
    if (known < 0) {
        struct utsname u;
        int major = 0, minor = 0;
        known = uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
                (major > 5 || (major == 5 && minor >= 8));
    }
    return known;
}
#endif

void cli_output_sync_all(struct cli_output *const *outs, size_t n)
{
#if defined(__linux__)
    /* Each fsync of a file commits the journal and flushes the disk's
     * cache: on ext4 over a virtual disk that was most of the time of a
     * batch of small files (16 fsyncs a round: 4-5 ms a file while other
     * work wrote to the disk; one syncfs: 0.8 ms). syncfs waits for every
     * dirty page and inode of the file system, these files' among them, so
     * they are as durable before their renames as after an fsync each.
     * Only since Linux 5.8 does it report a failed writeback (before, it
     * returned 0 whatever happened): older kernels keep the fsyncs. */
    struct stat st0, st;
    int fd0;

    if (n < 2 || !outs[0]->fp || !outs[0]->atomic || outs[0]->err || !syncfs_reports_errors())
        return;
    fd0 = outs[0]->fd;
    if (fstat(fd0, &st0) != 0 || syncfs(fd0) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        struct cli_output *out = outs[i];
        /* A temporary file sits beside its target: one in the first's
         * folder is on its file system without asking. */
        if (out->fp && out->atomic && !out->err &&
            (cli_same_folder(out->target, outs[0]->target) ||
             (fstat(out->fd, &st) == 0 && st.st_dev == st0.st_dev)))
            out->synced = 1;
    }
#else
    (void)outs;
    (void)n;
#endif
}

int cli_output_close(struct cli_output *out)
{
    FILE *fp = out->fp;
    int err = 0;

    if (!fp || fp == stdout)
        return out->err;
    errno = 0;
    if (fflush(fp) != 0 || ferror(fp))
        err = errno ? errno : EIO;
    /* A file system that cannot sync a file (EINVAL) still holds it. */
    if (!err && out->atomic && !out->synced && fsync(out->fd) != 0 && errno != EINVAL)
        err = errno;
    out->fp = NULL;
    if (fclose(fp) != 0 && !err)
        err = errno;
    free(out->iobuf);
    out->iobuf = NULL;
    if (err && !out->err)
        out->err = err;
    return out->err;
}

int cli_output_commit(struct cli_output *out)
{
    int err = 0;

    if (out->fp == stdout) {
        out->fp = NULL;
        return cli_close_stdout();
    }
    if ((err = cli_output_close(out)) != 0)
        return fail(out, err);
    if (!out->atomic) {
        cli_output_abort(out);
        return CLI_EXIT_OK;
    }

    sigset_t old;
    guard(&old);
    if (rename(temp_paths[out->slot], out->target) == 0)
        temp_live[out->slot] = 0;
    else
        err = errno;
    unguard(&old);
    if (err)
        return fail(out, err);

    if (!out->no_dir_sync)
        cli_sync_directory(out->target);
    cli_output_abort(out);
    return CLI_EXIT_OK;
}

void cli_output_abort(struct cli_output *out)
{
    if (out->fp && out->fp != stdout)
        fclose(out->fp);
    out->fp = NULL;
    free(out->iobuf);
    out->iobuf = NULL;
    if (out->atomic && out->slot >= 0)
        remove_temp(out->slot);
    out->atomic = 0;
    out->slot = -1;
    free(out->resolved);
    out->resolved = NULL;
    out->target = out->path;
}

int cli_close_stdout(void)
{
    int err = 0;

    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        err = errno ? errno : EIO;
    if (fclose(stdout) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return CLI_EXIT_OK;
    if (err != EPIPE)
        cli_error("cannot write to standard output: %s", strerror(err));
    return CLI_EXIT_FAILURE;
}
