/* output.c - writing a map to a file, atomically, or to stdout.
 *
 * A failed run never leaves a partial or corrupt output file, and an
 * existing file is only ever replaced by a complete one. So a map goes to a
 * temporary file in the target's directory (same file system, so rename()
 * is atomic), is flushed and fsync'ed, and only then renamed over the
 * target. Any failure, or SIGINT/SIGTERM/SIGHUP, removes the temporary file.
 */
#define _XOPEN_SOURCE 700 /* POSIX.1-2008 with XSI: realpath */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

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

    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction old;
        /* A signal ignored by our parent (nohup) stays ignored. */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
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

static void remove_temp(int slot)
{
    sigset_t old;
    block_signals(&old);
    if (temp_live[slot]) {
        unlink(temp_paths[slot]);
        temp_live[slot] = 0;
    }
    restore_signals(&old);
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

/* Creates "DIR/.NAME.XXXXXX" beside target. */
static int open_temp(struct cli_output *out)
{
    const char *slash = strrchr(out->target, '/');
    const char *name = slash ? slash + 1 : out->target;
    int dirlen = slash ? (int)(slash - out->target + 1) : 0;
    /* Keep the name well under NAME_MAX once ".", ".XXXXXX" are added. */
    int namelen = strlen(name) > 200 ? 200 : (int)strlen(name);
    sigset_t old;
    int fd = -1, n, err = 0, slot = -1;

    block_signals(&old);
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
    } else if ((fd = mkstemp(temp_path)) < 0) {
        err = errno;
    } else {
        temp_live[slot] = 1;
        out->slot = slot;
    }
    restore_signals(&old);
    if (fd < 0)
        return fail(out, err);

    /* mkstemp creates mode 0600; give the map the mode a new file gets. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        err = errno;
        close(fd);
        return fail(out, err);
    }
    out->fp = fdopen(fd, "wb");
    if (!out->fp) {
        err = errno;
        close(fd);
        return fail(out, err);
    }
    out->atomic = 1;
    return CLI_EXIT_OK;
}

int cli_output_open(struct cli_output *out, const char *path)
{
    struct stat st;

    memset(out, 0, sizeof *out);
    out->slot = -1;
    if (!path || strcmp(path, "-") == 0) {
        out->fp = stdout;
        return CLI_EXIT_OK;
    }
    out->path = path;
    out->target = path;

    if (path[strlen(path) - 1] == '/')
        return fail(out, EISDIR);

    /* Replace the file a symlink points to, not the link (a dangling link
     * has nothing to resolve to and is replaced). */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        out->resolved = realpath(path, NULL);
        if (out->resolved)
            out->target = out->resolved;
    }

    if (stat(out->target, &st) == 0) {
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
    }
    return open_temp(out);
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
    if (!err && out->atomic && fsync(fileno(fp)) != 0 && errno != EINVAL)
        err = errno;
    out->fp = NULL;
    if (fclose(fp) != 0 && !err)
        err = errno;
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
    block_signals(&old);
    if (rename(temp_paths[out->slot], out->target) == 0)
        temp_live[out->slot] = 0;
    else
        err = errno;
    restore_signals(&old);
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
