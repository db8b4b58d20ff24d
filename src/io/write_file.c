/* io/write_file.c - cg_write_file: a map into a named file in one call, the
 * format from the name, never a partial file. The bytes go to a temporary
 * file beside the target (same folder, so the same file system), which is
 * renamed over the target only when complete: a failed write leaves the old
 * file as it was, and a reader never sees half a map. */
#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/mem.h"
#include "io/format.h"

typedef struct file_sink {
    int fd;
    int error; /* errno of the first failed write */
} file_sink;

static int write_fd(void *ctx, const void *data, size_t len)
{
    file_sink *f = ctx;
    const char *p = data;
    while (len > 0 && !f->error) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->error = n < 0 ? errno : EIO;
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    return f->error != 0;
}

/* The folder part of path ("." when it has none), in buf. */
static void folder_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else if (slash == path)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

/* Writes through the callback into path, atomically: returns CG_OK, or an
 * error with diag, the target untouched. An existing file that is not a
 * regular file (a device, a FIFO) is written in place: it cannot be
 * replaced, and holds no earlier map to lose. */
static cg_status write_atomic(const char *path,
                              cg_status (*emit)(const void *arg, cg_write_fn, void *, cg_diag *),
                              const void *arg, cg_diag *diag)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        file_sink f = {open(path, O_WRONLY), 0};
        if (f.fd < 0) {
            cg__diag(diag, 0, 0, "cannot open '%s': %s", path, strerror(errno));
            return CG_EIO;
        }
        cg_status s = emit(arg, write_fd, &f, diag);
        if (close(f.fd) != 0 && s == CG_OK) {
            cg__diag(diag, 0, 0, "cannot write '%s': %s", path, strerror(errno));
            s = CG_EIO;
        }
        return s;
    }
    size_t len = strlen(path);
    char *tmp = cg__malloc(len + 32);
    if (!tmp) {
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    /* O_EXCL with a name of our own, not mkstemp: the file gets the mode the
     * umask gives a new file (mkstemp's is 0600), or the old file's. */
    file_sink f = {-1, 0};
    static atomic_uint counter; /* distinct names for the threads of a process */
    for (unsigned i = 0; i < 100 && f.fd < 0; i++) {
        snprintf(tmp, len + 32, "%s.%ld-%u.tmp", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1u));
        f.fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, exists ? (st.st_mode & 07777) : 0666);
        if (f.fd < 0 && errno != EEXIST)
            break;
    }
    if (f.fd < 0) {
        char folder[4096];
        folder_of(path, folder, sizeof folder);
        cg__diag(diag, 0, 0, "cannot create a file in '%s': %s", folder, strerror(errno));
        cg__free(tmp);
        return CG_EIO;
    }
    if (exists)
        (void)fchmod(f.fd, st.st_mode & 07777); /* the umask may have narrowed it */
    cg_status s = emit(arg, write_fd, &f, diag);
    if (s == CG_EIO && f.error)
        cg__diag(diag, 0, 0, "cannot write '%s': %s", path, strerror(f.error));
    if (close(f.fd) != 0 && s == CG_OK) {
        cg__diag(diag, 0, 0, "cannot write '%s': %s", path, strerror(errno));
        s = CG_EIO;
    }
    if (s == CG_OK && rename(tmp, path) != 0) {
        cg__diag(diag, 0, 0, "cannot replace '%s': %s", path, strerror(errno));
        s = CG_EIO;
    }
    if (s != CG_OK)
        unlink(tmp);
    cg__free(tmp);
    return s;
}

typedef struct map_args {
    const cg_grid *grid;
    const cg_write_options *options;
} map_args;

static cg_status emit_map(const void *arg, cg_write_fn write, void *ctx, cg_diag *diag)
{
    const map_args *m = arg;
    return cg_write(m->grid, m->options, write, ctx, diag);
}

static cg_status emit_tileset(const void *arg, cg_write_fn write, void *ctx, cg_diag *diag)
{
    (void)arg;
    return cg_write_tileset_image(write, ctx, diag);
}

/* A path that is a symbolic link names its target: the map is written
 * there and the link kept (as the tool does, docs/cli.md); a link that
 * cannot be followed is refused rather than replaced. *real is the path to
 * write, path itself or (a link) its resolved target, which the caller
 * frees. */
static cg_status follow_link(const char *path, char **real, cg_diag *diag)
{
    struct stat st;
    *real = NULL;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return CG_OK;
    char *target = realpath(path, NULL);
    if (!target) {
        cg__diag(diag, 0, 0,
                 "cannot write '%s': it is a symbolic link that cannot be followed (%s)", path,
                 strerror(errno));
        return CG_EIO;
    }
    *real = target;
    return CG_OK;
}

cg_status cg_write_file(const cg_grid *grid, const char *path, const cg_write_options *options,
                        cg_diag *diag)
{
    if (!grid || !path || !path[0]) {
        cg__diag(diag, 0, 0, "no %s to write", grid ? "file name" : "map");
        return CG_EINVAL;
    }
    cg_write_options o = {0};
    if (options)
        o = *options;
    if (!options || o.format == CG_FORMAT_AUTO) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        o.format = CG_FORMAT_ASCII; /* no extension */
        if (dot && dot != base && cg_format_from_path(path, &o.format) != CG_OK) {
            cg__diag(diag, 0, 0, "no format has the extension '%s' of '%s'", dot, path);
            return CG_EINVAL;
        }
    }
    if (!cg_format_available(o.format)) { /* also an out-of-range value */
        if ((unsigned)o.format >= cg__format_count) {
            cg__diag(diag, 0, 0, "unknown format %d", (int)o.format);
            return CG_EINVAL;
        }
        cg__diag(diag, 0, 0, "cannot write '%s' as %s: built without PNG support", path,
                 cg_format_name(o.format) ? cg_format_name(o.format) : "?");
        return CG_EUNSUPPORTED;
    }
    char *real = NULL;
    cg_status s = follow_link(path, &real, diag);
    if (s != CG_OK)
        return s;
    const char *target = real ? real : path;
    /* A Tiled map names its tileset image beside it (beside a link's
     * target): written when absent, an image already there (perhaps
     * redrawn) kept. Checked first, so a build that cannot draw it refuses
     * before writing anything. */
    const cg__format_def *def = cg__formats[o.format];
    char folder[4096], image[4096 + sizeof CG_TILESET_IMAGE + 1];
    struct stat st;
    folder_of(target, folder, sizeof folder);
    snprintf(image, sizeof image, "%s/%s", folder, CG_TILESET_IMAGE);
    int need_image = def->tileset && stat(image, &st) != 0;
    if (need_image && !cg_format_available(CG_FORMAT_PNG)) {
        cg__diag(diag, 0, 0,
                 "cannot write '%s': its tileset image %s is a PNG, and this build "
                 "has no PNG support",
                 path, CG_TILESET_IMAGE);
        free(real); /* from realpath: the C library's malloc, not the budget's */
        return CG_EUNSUPPORTED;
    }
    map_args m = {grid, &o};
    s = write_atomic(target, emit_map, &m, diag);
    free(real);
    if (s != CG_OK || !need_image)
        return s;
    return write_atomic(image, emit_tileset, NULL, diag);
}
