/* testutil.c - the parts of testutil.h that need POSIX: running a program
 * (the built tool, or a shell command) with its output captured, and the
 * temporary work folder. Compiled once, into every test (tests/CMakeLists.txt,
 * cavegen_add_test). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

char tu_workdir[256];

/* An unlinked file in TMPDIR to take an output (or give an input). */
static int anonymous_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/cavegen-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(fcntl(fd, F_SETFD, FD_CLOEXEC), 0);
    return fd;
}

static int open_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    return fd;
}

/* Everything written to fd (a pipe: until its end), NUL-terminated. */
static char *read_back(int fd, int is_pipe, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *data = malloc(cap + 1);
    assert_non_null(data);
    if (!is_pipe)
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    for (;;) {
        ssize_t got = read(fd, data + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        assert_true(got >= 0);
        if (got == 0)
            break;
        n += (size_t)got;
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap + 1);
            assert_non_null(data);
        }
    }
    data[n] = '\0';
    if (len)
        *len = n;
    return data;
}

tu_child tu_start(const tu_cmd *cmd, const char *program, const char *const *args)
{
    static const tu_cmd plain = {0};
    if (!cmd)
        cmd = &plain;
    size_t nargs = 0;
    while (args && args[nargs])
        nargs++;
    const char **argv = malloc((nargs + 2) * sizeof *argv);
    assert_non_null(argv);
    argv[0] = program;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = args[i];
    argv[nargs + 1] = NULL;

    tu_child c = {.out_fd = -1, .err_fd = -1};
    int in, out, err = 2;
    if (cmd->stdin_text) {
        in = anonymous_file();
        size_t len = strlen(cmd->stdin_text);
        assert_int_equal(write(in, cmd->stdin_text, len), (ssize_t)len);
        assert_int_equal(lseek(in, 0, SEEK_SET), 0);
    } else {
        in = open_path(cmd->stdin_path ? cmd->stdin_path : "/dev/null", O_RDONLY);
    }
    if (cmd->stdout_path) {
        out = open_path(cmd->stdout_path, O_WRONLY | O_CREAT | O_TRUNC);
    } else if (cmd->stdout_pipe) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(fcntl(fds[0], F_SETFD, FD_CLOEXEC), 0);
        assert_int_equal(fcntl(fds[1], F_SETFD, FD_CLOEXEC), 0);
        c.out_fd = fds[0];
        out = fds[1];
        c.out_pipe = 1;
    } else {
        out = c.out_fd = anonymous_file();
    }
    if (cmd->stderr_path)
        err = open_path(cmd->stderr_path, O_WRONLY | O_CREAT | O_TRUNC);
    else if (!cmd->pass_stderr)
        err = c.err_fd = anonymous_file();
    fflush(NULL); /* nothing buffered is written twice */

    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0) {
        if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
            (cmd->dir && chdir(cmd->dir) != 0))
            _exit(127);
        if (cmd->child_setup)
            cmd->child_setup(cmd->ctx);
        execv(program, (char *const *)argv);
        _exit(127);
    }
    close(in);
    if (out != c.out_fd)
        close(out); /* a pipe's write end too: its reader sees the end */
    if (err != 2 && err != c.err_fd)
        close(err);
    free(argv);
    return c;
}

tu_result tu_finish(tu_child *c)
{
    tu_result r = {0};
    if (c->out_fd >= 0 && c->out_pipe) /* drained first: the child may wait on it */
        r.out = read_back(c->out_fd, 1, &r.outlen);
    int status;
    pid_t got;
    while ((got = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    assert_int_equal(got, c->pid);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (c->out_fd >= 0) {
        if (!c->out_pipe)
            r.out = read_back(c->out_fd, 0, &r.outlen);
        close(c->out_fd);
    } else {
        r.out = calloc(1, 1);
        assert_non_null(r.out);
    }
    if (c->err_fd >= 0) {
        r.err = read_back(c->err_fd, 0, NULL);
        close(c->err_fd);
    } else {
        r.err = calloc(1, 1);
        assert_non_null(r.err);
    }
    c->out_fd = c->err_fd = -1;
    return r;
}

tu_result tu_exec(const tu_cmd *cmd, const char *program, const char *const *args)
{
    tu_child c = tu_start(cmd, program, args);
    return tu_finish(&c);
}

tu_result tu_shell(const tu_cmd *cmd, const char *line)
{
    return tu_exec(cmd, "/bin/sh", TU_ARGS("-c", line));
}

void tu_result_free(tu_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* ------------------------------------------------------ work folders */

static int make_temp(char *buf, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, cap, "%s/cavegen-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf) ? 0 : -1;
}

void tu_mkdtemp(char *buf, size_t cap)
{
    assert_int_equal(make_temp(buf, cap), 0);
}

int tu_rmtree(const char *dir)
{
    char cmd[700];
    /* u+w first: a test may leave a read-only folder in it. */
    snprintf(cmd, sizeof cmd, "chmod -R u+w -- '%s'; rm -rf -- '%s'", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

int tu_workdir_setup(void **state)
{
    (void)state;
    return make_temp(tu_workdir, sizeof tu_workdir);
}

int tu_workdir_teardown(void **state)
{
    (void)state;
    return tu_rmtree(tu_workdir);
}

void tu_workdir_empty(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cd '%s' && chmod -R u+w . && rm -rf -- * .[!.]* ..?*",
             tu_workdir);
    assert_int_equal(system(cmd), 0);
}

void tu_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tu_workdir, name);
}

int tu_list_dir(const char *dir, const char *const *except, char *buf, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), listed = 0;
    assert_true(n >= 0);
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        int skip = !strcmp(name, ".") || !strcmp(name, "..");
        for (size_t k = 0; except && except[k] && !skip; k++)
            skip = !strcmp(name, except[k]);
        if (!skip) {
            strncat(buf, name, cap - strlen(buf) - 2);
            strncat(buf, " ", cap - strlen(buf) - 1);
            listed++;
        }
        free(names[i]);
    }
    free(names);
    return listed;
}

/* ------------------------------------------------------ parallel loops */

/* Runs the last task first, then the even ones, then the odd ones. */
void tu_shuffled_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    (void)ctx;
    task(arg, n - 1);
    for (size_t i = 0; i + 1 < n; i += 2)
        task(arg, i);
    for (size_t i = 1; i + 1 < n; i += 2)
        task(arg, i);
}

typedef struct pulled {
    void (*task)(void *arg, size_t i);
    void *arg;
    size_t n;
    atomic_size_t next;
} pulled;

static void *pull(void *p)
{
    pulled *j = p;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;)
        j->task(j->arg, i);
    return NULL;
}

/* Three threads pull the indices. */
void tu_threads_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    (void)ctx;
    pulled j = {task, arg, n, 0};
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_create(&t[k], NULL, pull, &j), 0);
    pull(&j);
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_join(t[k], NULL), 0);
}
