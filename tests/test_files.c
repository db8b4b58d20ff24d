/* test_files.c - writes that fail and runs that are stopped never leave a
 * partial or temporary file, and an existing output is either untouched or
 * completely replaced (docs/testing.md, docs/cli.md "Writing files",
 * docs/testing.md).
 *
 * Each case runs the built tool (CAVEGEN_EXE) in a fresh folder: a file
 * size limit (RLIMIT_FSIZE, what `ulimit -f` sets, standing for a full
 * disk), /dev/full, a missing folder, a folder as output, a read-only folder
 * (by permissions: as root the tool runs as user nobody, since root ignores
 * them; and a read-only bind mount in a private mount namespace, root only),
 * every signal that ends the process in the middle of a long run and of a
 * batch; closed fds 0-2, symbolic links, kept modes and owners, and the
 * memory budget under an address-space limit.
 */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OLD_TEXT "the old map\n"
#define NOBODY 65534

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_write_text(path, text);
}

/* How the child is set up before exec. */
enum child_mode {
    CHILD_PLAIN,
    CHILD_FSIZE,   /* RLIMIT_FSIZE of 64 KiB, as `ulimit -f 64` */
    CHILD_NOBODY,  /* as user nobody when root, so permissions apply */
    CHILD_ROMOUNT, /* in a mount namespace where ro_dir is a read-only bind */
    CHILD_CPU,     /* RLIMIT_CPU of 1 s, as `ulimit -t 1` */
    CHILD_AS       /* RLIMIT_AS of AS_LIMIT, as `ulimit -v` */
};

/* The address space of CHILD_AS: the budget the cases give (64 MiB) plus
 * 128 MiB for the program, its libraries and what the budget leaves out. */
#define AS_BUDGET "64M"
#define AS_LIMIT ((rlim_t)(64 + 128) << 20)

static const char *ro_dir; /* for CHILD_ROMOUNT */

/* In the child, before exec: the set-up of its mode (a child_mode). */
static void set_up_child(const void *ctx)
{
    enum child_mode mode = *(const enum child_mode *)ctx;
    /* No core file in the work folder from the signals that dump one. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (mode == CHILD_AS) {
        struct rlimit rl = {AS_LIMIT, AS_LIMIT};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(126);
    } else if (mode == CHILD_CPU) {
        /* `ulimit -t 1`: SIGXCPU after a second of CPU, SIGKILL later. */
        struct rlimit rl = {1, 30};
        if (setrlimit(RLIMIT_CPU, &rl) != 0)
            _exit(126);
    } else if (mode == CHILD_FSIZE) {
        struct rlimit rl = {64 * 1024, 64 * 1024};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(126);
    } else if (mode == CHILD_NOBODY && geteuid() == 0) {
        if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            _exit(125);
    } else if (mode == CHILD_ROMOUNT) {
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount(ro_dir, ro_dir, NULL, MS_BIND, NULL) != 0 ||
            mount(NULL, ro_dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
            _exit(125);
    }
}

/* The tool as user nobody runs it: a copy in a folder of its own that every
 * user may enter, since the build tree may not be (a clone under /root,
 * mode 0700). Made by the group's set-up when running as root; "" else. */
static char nobody_dir[256], nobody_exe[300];

static int group_setup(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return 0;
    snprintf(nobody_dir, sizeof nobody_dir, "/tmp/cavegen-nobody-XXXXXX");
    if (!mkdtemp(nobody_dir) || chmod(nobody_dir, 0755) != 0)
        return -1;
    snprintf(nobody_exe, sizeof nobody_exe, "%s/cavegen", nobody_dir);
    size_t len = 0;
    char *bytes = tu_read_file(CAVEGEN_EXE, &len);
    if (!bytes)
        return -1;
    tu_write_file(nobody_exe, bytes, len);
    free(bytes);
    return chmod(nobody_exe, 0755);
}

static int group_teardown(void **state)
{
    (void)state;
    return nobody_dir[0] ? tu_rmtree(nobody_dir) : 0;
}

/* Starts the tool in the work folder; stdout to stdout_path (NULL:
 * captured). */
static tu_child start(enum child_mode mode, const char *stdout_path, const char *const *args)
{
    tu_cmd cmd = {.dir = tu_workdir,
                  .stdout_path = stdout_path,
                  .child_setup = set_up_child,
                  .ctx = &mode};
    return tu_start(&cmd, mode == CHILD_NOBODY && nobody_exe[0] ? nobody_exe : CAVEGEN_EXE, args);
}

static tu_result run(enum child_mode mode, const char *const *args)
{
    tu_child c = start(mode, NULL, args);
    return tu_finish(&c);
}

#define ARGS TU_ARGS

/* Exit 1 and exactly one line "cavegen: ...needle...". */
static void assert_failed_with(tu_result *r, const char *needle)
{
    if (r->status != 1 || strncmp(r->err, "cavegen: ", 9) != 0 || !strstr(r->err, needle) ||
        strchr(r->err, '\n') != r->err + strlen(r->err) - 1) {
        char err[512];
        snprintf(err, sizeof err, "%s", r->err);
        tu_result_free(r); /* fail_msg does not return */
        fail_msg("expected exit 1 and 'cavegen: ...%s', got %d: %s", needle, r->status, err);
    }
}

/* The folder holds exactly `names` (sorted, space-terminated). */
static void assert_dir(const char *dir, const char *names)
{
    char got[2048];
    tu_list_dir(dir, NULL, got, sizeof got);
    if (strcmp(got, names) != 0)
        fail_msg("%s holds '%s', expected '%s'", dir, got, names);
}

static void assert_old(const char *name)
{
    char path[512];
    tu_path(path, sizeof path, name);
    char *text = tu_read_file(path, NULL);
    assert_non_null(text);
    assert_string_equal(text, OLD_TEXT);
    free(text);
}

static int setup(void **state)
{
    if (tu_workdir_setup(state) != 0)
        return -1;
    /* Other users (nobody, below) may enter it. */
    return chmod(tu_workdir, 0755);
}

/* ------------------------------------------------------------ tests */

/* `ulimit -f`: the kernel sends SIGXFSZ when a write passes the limit; the
 * tool must ignore it so that write fails with EFBIG and is reported, and the
 * temporary file removed (a tool killed by SIGXFSZ leaves it behind). */
static void a_file_size_limit_fails_the_write_and_leaves_no_file(void **state)
{
    (void)state;
    put_file(tu_workdir, "big.txt", OLD_TEXT);
    tu_result r = run(CHILD_FSIZE, ARGS("-s", "1", "--size", "1000x1000", "-o", "big.txt"));
    assert_failed_with(&r, "cannot write 'big.txt': File too large");
    assert_dir(tu_workdir, "big.txt ");
    assert_old("big.txt");
    tu_result_free(&r);

    /* An image: PNG, or PBM in a build without PNG (CAVEGEN_PNG=OFF). */
    char image[16], why[64];
    snprintf(image, sizeof image, "new.%s", tu_image_ext());
    snprintf(why, sizeof why, "cannot write '%s': File too large", image);
    r = run(CHILD_FSIZE, ARGS("-s", "1", "--size", "1000x1000", "-f", tu_image_ext(), "--scale",
                              "8", "-o", image));
    assert_failed_with(&r, why);
    assert_dir(tu_workdir, "big.txt ");
    tu_result_free(&r);
}

static void a_full_device_fails_the_write(void **state)
{
    (void)state;
    tu_result r = run(CHILD_PLAIN, ARGS("-s", "1", "-o", "/dev/full"));
    assert_failed_with(&r, "cannot write '/dev/full': No space left on device");
    tu_result_free(&r);
    /* stdout on a full disk (docs/cli.md). */
    tu_child full = start(CHILD_PLAIN, "/dev/full", ARGS("-s", "1"));
    r = tu_finish(&full);
    assert_failed_with(&r, "cannot write to standard output: No space left on device");
    tu_result_free(&r);
    assert_dir(tu_workdir, "");
}

static void missing_folders_and_folders_as_output_fail_at_once(void **state)
{
    (void)state;
    char dir[512];
    tu_path(dir, sizeof dir, "dir");
    assert_int_equal(mkdir(dir, 0755), 0);
    put_file(tu_workdir, "old.txt", OLD_TEXT);
    /* A pipeline that would run for minutes: the path fails first. */
    const char *slow = "smooth 100000";
    tu_result r = run(CHILD_PLAIN, ARGS("-s", "1", "--size", "3000x3000", "--fill", "50",
                                         "--step", slow, "-o", "nodir/map.txt"));
    assert_failed_with(&r, "cannot write 'nodir/map.txt': No such file or directory");
    tu_result_free(&r);
    r = run(CHILD_PLAIN,
            ARGS("-s", "1", "--size", "3000x3000", "--fill", "50", "--step", slow, "-o", "dir"));
    assert_failed_with(&r, "cannot write 'dir': Is a directory");
    tu_result_free(&r);
    r = run(CHILD_PLAIN, ARGS("-s", "1", "-o", "old.txt/map.txt"));
    assert_failed_with(&r, "Not a directory");
    tu_result_free(&r);
    assert_dir(tu_workdir, "dir old.txt ");
    assert_dir(dir, "");
    assert_old("old.txt");
}

static void a_read_only_folder_refuses_the_output(void **state)
{
    (void)state;
    char ro[512];
    tu_path(ro, sizeof ro, "ro");
    assert_int_equal(mkdir(ro, 0755), 0);
    put_file(ro, "old.txt", OLD_TEXT);
    assert_int_equal(chmod(ro, 0555), 0);

    tu_result r = run(CHILD_NOBODY, ARGS("-s", "1", "-o", "ro/new.txt"));
    if (r.status == 125 || r.status == 126 || r.status == 127) {
        tu_result_free(&r);
        skip(); /* cannot become nobody, or nobody cannot run the binary */
    }
    assert_failed_with(&r, "cannot write 'ro/new.txt': Permission denied");
    tu_result_free(&r);
    /* Replacing a file there would need the folder too. */
    r = run(CHILD_NOBODY, ARGS("-s", "1", "-o", "ro/old.txt"));
    assert_failed_with(&r, "cannot write 'ro/old.txt': Permission denied");
    tu_result_free(&r);
    assert_dir(ro, "old.txt ");
    assert_int_equal(chmod(ro, 0755), 0);
    char old[600];
    snprintf(old, sizeof old, "%s/old.txt", ro);
    char *text = tu_read_file(old, NULL);
    assert_string_equal(text, OLD_TEXT);
    free(text);

    /* A file the user may not write, in a folder they may: refused as an
     * ordinary open would be (docs/cli.md), although rename could replace it. */
    put_file(tu_workdir, "locked.txt", OLD_TEXT);
    char locked[512];
    tu_path(locked, sizeof locked, "locked.txt");
    assert_int_equal(chmod(locked, 0444), 0);
    r = run(CHILD_NOBODY, ARGS("-s", "1", "-o", "locked.txt"));
    if (geteuid() == 0) {
        /* nobody does not own the work folder: no write there at all. */
        assert_int_equal(r.status, 1);
    } else {
        assert_failed_with(&r, "cannot write 'locked.txt': Permission denied");
    }
    tu_result_free(&r);
    assert_old("locked.txt");
}

static void a_read_only_file_system_refuses_the_output(void **state)
{
    (void)state;
    char ro[512];
    tu_path(ro, sizeof ro, "rofs");
    assert_int_equal(mkdir(ro, 0755), 0);
    put_file(ro, "old.txt", OLD_TEXT);
    ro_dir = ro;
    tu_result r = run(CHILD_ROMOUNT, ARGS("-s", "1", "-o", "rofs/old.txt"));
    if (r.status == 125) {
        tu_result_free(&r);
        print_message("no mount namespace here (not root, or no CAP_SYS_ADMIN): skipped\n");
        skip();
    }
    assert_failed_with(&r, "cannot write 'rofs/old.txt': Read-only file system");
    tu_result_free(&r);
    char image[32], why[96];
    snprintf(image, sizeof image, "rofs/new.%s", tu_image_ext());
    snprintf(why, sizeof why, "cannot write '%s': Read-only file system", image);
    r = run(CHILD_ROMOUNT, ARGS("-s", "1", "-o", image));
    assert_failed_with(&r, why);
    tu_result_free(&r);
    assert_dir(ro, "old.txt ");
    char old[600];
    snprintf(old, sizeof old, "%s/old.txt", ro);
    char *text = tu_read_file(old, NULL);
    assert_string_equal(text, OLD_TEXT);
    free(text);
}

/* Waits until the tool has created its temporary file ".NAME.XXXXXX". */
static int wait_for_temp(const char *prefix, pid_t pid)
{
    for (int i = 0; i < 4000; i++) {
        char names[2048];
        tu_list_dir(tu_workdir, NULL, names, sizeof names);
        if (strstr(names, prefix))
            return 1;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return 0; /* it ended first */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static void signals_mid_run_leave_no_temporary_and_keep_the_old_file(void **state)
{
    (void)state;
    /* Every signal whose default action ends the process. */
    const int sigs[] = {SIGINT,  SIGTERM,   SIGHUP,   SIGQUIT,      SIGALRM, SIGUSR1,
                        SIGUSR2, SIGPIPE,   SIGXCPU,  SIGVTALRM,    SIGPROF, SIGPOLL,
                        SIGPWR,  SIGSTKFLT, SIGRTMIN, SIGRTMIN + 5, SIGRTMAX};
    /* An image: PNG, or PBM in a build without PNG (CAVEGEN_PNG=OFF). */
    char image[16], temp[20], listing[20];
    snprintf(image, sizeof image, "cave.%s", tu_image_ext());
    snprintf(temp, sizeof temp, ".%s.", image);
    snprintf(listing, sizeof listing, "%s ", image);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        put_file(tu_workdir, image, OLD_TEXT);
        /* Minutes of work: the signal always comes mid-run. */
        tu_child c = start(CHILD_PLAIN, NULL,
                          ARGS("-s", "1", "--size", "3000x3000", "--fill", "50", "--step",
                               "smooth 100000", "-o", image));
        assert_true(wait_for_temp(temp, c.pid));
        assert_int_equal(kill(c.pid, sigs[i]), 0);
        tu_result r = tu_finish(&c);
        /* Dies by the signal itself, so a shell sees what happened. */
        assert_int_equal(r.status, 128 + sigs[i]);
        tu_result_free(&r);
        assert_dir(tu_workdir, listing);
        assert_old(image);
    }
    /* `ulimit -t`: the kernel's SIGXCPU once the CPU time is spent. */
    put_file(tu_workdir, image, OLD_TEXT);
    tu_result r = run(CHILD_CPU, ARGS("-s", "1", "--size", "3000x3000", "--fill", "50", "--step",
                                      "smooth 100000", "-o", image));
    assert_int_equal(r.status, 128 + SIGXCPU);
    tu_result_free(&r);
    assert_dir(tu_workdir, listing);
    assert_old(image);
}

/* Signals at times spread over a whole run and a little past its end
 * (1/20 to 24/20 of its duration), through the write and the rename:
 * afterwards the target is the old file or the complete new map. */
static void a_signal_at_any_time_leaves_the_old_file_or_the_new_one(void **state)
{
    (void)state;
    const char *const *args = ARGS("-p", "classic", "-s", "5", "--size", "2500x2500", "-o",
                                   "cave.txt");
    /* The reference: the complete map and how long it takes. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tu_result r = run(CHILD_PLAIN, args);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char path[512];
    tu_path(path, sizeof path, "cave.txt");
    size_t reflen = 0;
    char *ref = tu_read_file(path, &reflen);
    assert_non_null(ref);
    long total_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;

    int olds = 0, news = 0;
    for (int k = 0; k < 24; k++) {
        put_file(tu_workdir, "cave.txt", OLD_TEXT);
        tu_child c = start(CHILD_PLAIN, NULL, args);
        struct timespec delay = {0, (long)((total_us * (k + 1) / 20) % 1000000) * 1000};
        delay.tv_sec = (total_us * (k + 1) / 20) / 1000000;
        nanosleep(&delay, NULL);
        kill(c.pid, k % 2 ? SIGTERM : SIGINT);
        r = tu_finish(&c);
        tu_result_free(&r);
        assert_dir(tu_workdir, "cave.txt ");
        size_t len = 0;
        char *got = tu_read_file(path, &len);
        assert_non_null(got);
        if (strcmp(got, OLD_TEXT) == 0)
            olds++;
        else if (len == reflen && memcmp(got, ref, len) == 0)
            news++;
        else
            fail_msg("after a signal at %ld us, cave.txt is neither old nor new (%zu bytes)",
                     total_us * (k + 1) / 20, len);
        free(got);
    }
    print_message("24 signals over a %ld ms run: %d left the old file, %d the new one\n",
                  total_us / 1000, olds, news);
    free(ref);
}

/* docs/cli.md: an interrupted batch removes the temporary files of the maps
 * in progress and keeps the maps already renamed into place, each complete. */
static void an_interrupted_batch_keeps_only_complete_maps(void **state)
{
    (void)state;
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        tu_child c = start(CHILD_PLAIN, NULL,
                          ARGS("-p", "type2", "-s", "7", "--size", "300x200", "-n", "1000000",
                               "-j", "2", "-q", "-o", "out/%07d.txt"));
        char out[512];
        tu_path(out, sizeof out, "out");
        /* Until a few maps are in place (renamed: names not starting '.'). */
        int ready = 0;
        for (int t = 0; t < 20000 && !ready; t++) {
            struct dirent **names;
            int n = scandir(out, &names, NULL, alphasort), done = 0;
            for (int k = 0; k < n; k++) {
                done += names[k]->d_name[0] != '.';
                free(names[k]);
            }
            if (n >= 0)
                free(names);
            ready = done >= 3;
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        assert_true(ready);
        assert_int_equal(kill(c.pid, sigs[i]), 0);
        tu_result r = tu_finish(&c);
        assert_int_equal(r.status, 128 + sigs[i]);
        tu_result_free(&r);

        /* No temporary file; every map complete and the one its seed makes. */
        struct dirent **names;
        int n = scandir(out, &names, NULL, alphasort);
        assert_true(n > 2);
        int maps = 0;
        for (int k = 0; k < n; k++) {
            const char *name = names[k]->d_name;
            if (strcmp(name, ".") && strcmp(name, "..")) {
                if (name[0] == '.')
                    fail_msg("a temporary file is left: out/%s", name);
                char path[1024];
                snprintf(path, sizeof path, "%s/%s", out, name);
                size_t len = 0;
                char *text = tu_read_file(path, &len);
                assert_non_null(text);
                if (len != 301 * 200)
                    fail_msg("out/%s has %zu bytes, not %d", name, len, 301 * 200);
                /* The first map, and one in four, against a single run. */
                long index = strtol(name, NULL, 10);
                if (index == 0 || maps % 4 == 0) {
                    char seed[32], single[512];
                    snprintf(seed, sizeof seed, "%ld", 7 + index);
                    tu_result one = run(CHILD_PLAIN, ARGS("-p", "type2", "-s", seed, "--size",
                                                           "300x200", "-o", "single.txt"));
                    assert_int_equal(one.status, 0);
                    tu_result_free(&one);
                    tu_path(single, sizeof single, "single.txt");
                    size_t slen = 0;
                    char *want = tu_read_file(single, &slen);
                    assert_true(slen == len && memcmp(want, text, len) == 0);
                    free(want);
                    remove(single);
                }
                free(text);
                maps++;
            }
        }
        for (int k = 0; k < n; k++)
            free(names[k]);
        free(names);
        print_message("%s after %d maps: no temporary file, each map complete\n",
                      sigs[i] == SIGINT ? "SIGINT" : "SIGTERM", maps);
        char cmd[1100];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
        assert_int_equal(system(cmd), 0);
    }
}

/* ------------------------------------------------- hostile surroundings */

/* With stderr closed (`2>&-`) the first file the tool opens would be fd 2,
 * and a message for stderr - here map 0's --stats line, printed while map
 * 1's temporary file is open - would land in a map: the tool opens
 * /dev/null on what is missing of fds 0-2 first. Closed stdin, stdout and
 * stderr each fail as they would (a write to a closed stdout is an error). */
static void closed_standard_fds_never_take_a_map(void **state)
{
    (void)state;
    char line[1024];
    tu_result r = run(CHILD_PLAIN, ARGS("-s", "1", "-n", "2", "--size", "10x3", "-o", "ref%d.txt"));
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    tu_cmd here = {.dir = tu_workdir};
    snprintf(line, sizeof line, "exec 2>&-; '%s' -s 1 -n 2 --stats --size 10x3 -o m%%d.txt",
             CAVEGEN_EXE);
    r = tu_shell(&here, line);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    snprintf(line, sizeof line, "exec 0<&- 2>&-; '%s' -s 1 -n 2 --stats --size 10x3 -o n%%d.txt",
             CAVEGEN_EXE);
    r = tu_shell(&here, line);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    const char *names[] = {"m0.txt", "m1.txt", "n0.txt", "n1.txt"};
    for (size_t i = 0; i < 4; i++) {
        char a[512], b[512];
        tu_path(a, sizeof a, names[i]);
        snprintf(b, sizeof b, "%s/ref%c.txt", tu_workdir, names[i][1]);
        char *got = tu_read_file(a, NULL), *want = tu_read_file(b, NULL);
        assert_non_null(got);
        if (strcmp(got, want) != 0)
            fail_msg("%s is not the map: '%s'", names[i], got);
        free(got);
        free(want);
    }
    /* Mid-run, with stderr closed: fd 2 is /dev/null, not the temporary
     * file, so no message can land in the map. */
    snprintf(line, sizeof line,
             "exec 2>&-; exec '%s' -s 1 --size 3000x3000 --fill 50 --step 'smooth 100000' "
             "-o slow.txt",
             CAVEGEN_EXE);
    tu_child c = tu_start(&here, "/bin/sh", ARGS("-c", line));
    assert_true(wait_for_temp(".slow.txt.", c.pid));
    char fd2[64], where[512] = "";
    snprintf(fd2, sizeof fd2, "/proc/%d/fd/2", (int)c.pid);
    ssize_t n = readlink(fd2, where, sizeof where - 1);
    kill(c.pid, SIGTERM);
    r = tu_finish(&c);
    tu_result_free(&r);
    if (n < 0 || strcmp(where, "/dev/null") != 0)
        fail_msg("with stderr closed, fd 2 is '%s'", n < 0 ? strerror(errno) : where);
    /* A closed stdout is a write error, not a silent success. */
    snprintf(line, sizeof line, "exec >&-; '%s' -s 1 --size 10x3", CAVEGEN_EXE);
    r = tu_shell(&here, line);
    assert_failed_with(&r, "cannot write to standard output: Bad file descriptor");
    tu_result_free(&r);
    /* -i - with stdin closed: a read error. */
    snprintf(line, sizeof line, "exec 0<&-; '%s' -i - -o x.txt", CAVEGEN_EXE);
    r = tu_shell(&here, line);
    assert_failed_with(&r, "cannot read standard input: Bad file descriptor");
    tu_result_free(&r);
    assert_dir(tu_workdir, "m0.txt m1.txt n0.txt n1.txt ref0.txt ref1.txt ");
}

static int is_link(const char *name)
{
    char path[512];
    struct stat st;
    tu_path(path, sizeof path, name);
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* docs/cli.md: a symbolic link is written through - the file it points to
 * is replaced, the link kept - and one that cannot be followed (dangling,
 * a loop, through a missing folder) is refused and kept, as root or not;
 * "/dev/stdout" with stdout closed (a link to /proc/self/fd/1) is never
 * replaced by a file. */
static void symlinks_are_written_through_or_refused(void **state)
{
    (void)state;
    char path[512], dir[512];
    tu_path(dir, sizeof dir, "d");
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    static const enum child_mode modes[] = {CHILD_PLAIN, CHILD_NOBODY};
    for (size_t m = 0; m < 2; m++) {
        if (modes[m] == CHILD_NOBODY && geteuid() != 0)
            break; /* not root: the plain run is the unprivileged one */
        static const struct {
            const char *link, *to, *why;
        } bad[] = {
            {"d/dangling", "nowhere", "No such file or directory"},
            {"d/loop", "loop", "Too many levels of symbolic links"},
            {"d/through", "missing/map.txt", "No such file or directory"},
        };
        for (size_t i = 0; i < 3; i++) {
            tu_path(path, sizeof path, bad[i].link);
            unlink(path);
            assert_int_equal(symlink(bad[i].to, path), 0);
            tu_result r = run(modes[m], ARGS("-s", "1", "--size", "8x4", "-o", bad[i].link));
            if (r.status == 125) {
                tu_result_free(&r);
                skip();
            }
            char why[256];
            snprintf(why, sizeof why,
                     "cannot write '%s': it is a symbolic link that cannot be "
                     "followed (%s)",
                     bad[i].link, bad[i].why);
            assert_failed_with(&r, why);
            tu_result_free(&r);
            assert_true(is_link(bad[i].link));
        }
        assert_dir(dir, "dangling loop through ");
        /* A good link: the file it points to is replaced, the link kept. */
        put_file(dir, "target.txt", OLD_TEXT);
        tu_path(path, sizeof path, "d/target.txt");
        assert_int_equal(chmod(path, 0666), 0);
        tu_path(path, sizeof path, "d/good");
        unlink(path);
        assert_int_equal(symlink("target.txt", path), 0);
        tu_result r = run(modes[m], ARGS("-s", "1", "--size", "8x4", "-o", "d/good"));
        assert_int_equal(r.status, 0);
        tu_result_free(&r);
        assert_true(is_link("d/good"));
        char target[600];
        snprintf(target, sizeof target, "%s/target.txt", dir);
        char *text = tu_read_file(target, NULL);
        assert_int_equal(strlen(text), 9 * 4);
        free(text);
        assert_dir(dir, "dangling good loop target.txt through ");
        tu_rmtree(dir);
        assert_int_equal(mkdir(dir, 0777), 0);
        assert_int_equal(chmod(dir, 0777), 0);
    }
    /* /dev/stdout's kind of link with stdout closed. */
    tu_path(path, sizeof path, "stdout");
    assert_int_equal(symlink("/proc/self/fd/1", path), 0);
    char line[1024];
    snprintf(line, sizeof line, "exec >&-; '%s' -s 1 --size 8x4 -o stdout", CAVEGEN_EXE);
    tu_cmd here = {.dir = tu_workdir};
    tu_result r = tu_shell(&here, line);
    tu_result_free(&r);
    assert_true(is_link("stdout"));
    snprintf(line, sizeof line, "exec >&-; '%s' -s 1 --size 8x4 -o /dev/stdout", CAVEGEN_EXE);
    r = tu_shell(&here, line);
    tu_result_free(&r);
    struct stat st;
    assert_int_equal(lstat("/dev/stdout", &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* The same link to a pipe, which has no path ("pipe:[N]"): written in
     * place, as the kernel opens it. */
    tu_cmd piped = {.dir = tu_workdir, .stdout_pipe = 1};
    tu_child pc = tu_start(&piped, CAVEGEN_EXE, ARGS("-s", "1", "--size", "8x4", "-o", "stdout"));
    r = tu_finish(&pc);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.outlen, 9 * 4);
    tu_result_free(&r);
    assert_true(is_link("stdout"));
    assert_dir(tu_workdir, "d stdout ");
}

/* A map that replaces a file keeps its permissions (a private map stays
 * private) and, where the tool may give it, its owner and group. */
static void a_replaced_file_keeps_its_mode_and_owner(void **state)
{
    (void)state;
    char path[512];
    struct stat st;
    put_file(tu_workdir, "private.txt", OLD_TEXT);
    tu_path(path, sizeof path, "private.txt");
    assert_int_equal(chmod(path, 0600), 0);
    tu_result r = run(CHILD_PLAIN, ARGS("-s", "1", "--size", "8x4", "-o", "private.txt"));
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_size, 9 * 4);
    assert_int_equal(chmod(path, 0640), 0);
    r = run(CHILD_PLAIN, ARGS("-s", "2", "--size", "8x4", "-n", "1", "-o", "private%.0d.txt"));
    tu_result_free(&r);
    if (geteuid() != 0)
        return;
    /* As root: the owner and group are kept too. */
    assert_int_equal(chown(path, NOBODY, NOBODY), 0);
    assert_int_equal(chmod(path, 0604), 0);
    r = run(CHILD_PLAIN, ARGS("-s", "3", "--size", "8x4", "-o", "private.txt"));
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, NOBODY);
    assert_int_equal(st.st_gid, NOBODY);
    assert_int_equal(st.st_mode & 07777, 0604);
    /* nobody replacing root's file (in a folder nobody may write): the new
     * file is nobody's, with the old permissions. */
    char dir[512];
    tu_path(dir, sizeof dir, "open");
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    put_file(dir, "roots.txt", OLD_TEXT);
    char roots[600];
    snprintf(roots, sizeof roots, "%s/roots.txt", dir);
    assert_int_equal(chmod(roots, 0646), 0);
    r = run(CHILD_NOBODY, ARGS("-s", "1", "--size", "8x4", "-o", "open/roots.txt"));
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(stat(roots, &st), 0);
    assert_int_equal(st.st_uid, NOBODY);
    assert_int_equal(st.st_mode & 07777, 0646);
    /* In a sticky folder (/tmp) another user's file cannot be renamed
     * over: refused before the run (which here would fail later). */
    assert_int_equal(chmod(dir, 01777), 0);
    put_file(dir, "sticky.txt", OLD_TEXT);
    snprintf(roots, sizeof roots, "%s/sticky.txt", dir);
    assert_int_equal(chmod(roots, 0666), 0);
    r = run(CHILD_NOBODY, ARGS("-s", "1", "--size", "3000x3000", "--fill", "50", "--step",
                               "smooth 100000", "-o", "open/sticky.txt"));
    assert_failed_with(&r, "cannot write 'open/sticky.txt': Operation not permitted");
    tu_result_free(&r);
    assert_dir(dir, "roots.txt sticky.txt ");
}

/* --stats lines are for maps written: none when stdout fails, for one map
 * or a batch (buffered, or straight into the stream). */
static void stats_only_for_maps_that_reached_stdout(void **state)
{
    (void)state;
    const char *const *cases[] = {
        ARGS("-s", "1", "--size", "20x10", "--stats"),
        ARGS("-s", "1", "--size", "20x10", "--stats", "-n", "3"),
        ARGS("-s", "1", "--size", "20x10", "--stats=json", "-n", "3", "-j", "2"),
        ARGS("-s", "1", "--size", "3000x2000", "--stats", "-n", "2"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_child full = start(CHILD_PLAIN, "/dev/full", cases[i]);
        tu_result r = tu_finish(&full);
        assert_failed_with(&r, "cannot write to standard output: No space left on device");
        tu_result_free(&r);
    }
}

/* Counts the lines of text that contain needle. */
static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The system calls the tool makes with the shell arguments args, as strace
 * (-e trace=<calls>) prints them, one a line; the caller frees. Skips the
 * test where there is no strace (Linux; .ci/run installs it). */
static char *traced_calls(const char *calls, const char *args)
{
#if !defined(__linux__)
    (void)calls;
    (void)args;
    skip();
    return NULL;
#else
    if (access("/usr/bin/strace", X_OK) != 0)
        skip();
    char line[1024];
    tu_cmd cmd = {.dir = tu_workdir, .stdin_text = ""};
    snprintf(line, sizeof line,
             /* LeakSanitizer cannot stop the world under a tracer */
             "ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e '%s' -o trace.txt '%s' %s"
             " && cat trace.txt",
             calls, CAVEGEN_EXE, args);
    tu_result r = tu_shell(&cmd, line);
    assert_int_equal(r.status, 0);
    free(r.err);
    return r.out;
#endif
}

/* On Linux a batch makes each round of files durable with one syncfs
 * before their renames, not one fsync a file (docs/cli.md "Writing
 * files"): 40 maps on one thread are rounds of 16, 16 and 8, so three
 * syncfs, and the only fsyncs are the folder's, one a round (before Linux
 * 5.8, an fsync a file). Watched with strace; every file is there and
 * whole. */
static void a_batch_syncs_each_round_of_files_once(void **state)
{
    (void)state;
    struct utsname u;
    int major = 0, minor = 0;
    assert_int_equal(uname(&u), 0);
    assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
    int new_kernel = major > 5 || (major == 5 && minor >= 8);
    char dir[512];
    tu_path(dir, sizeof dir, "maps");
    assert_int_equal(mkdir(dir, 0755), 0);
    for (int j = 1; j <= 2; j++) {
        char args[128];
        snprintf(args, sizeof args, "-p type2 -s 1 --size 30x20 -n 40 -j %d -o maps/%%02d.pbm", j);
        char *trace = traced_calls("trace=fsync,fdatasync,syncfs", args);
        if (new_kernel) {
            assert_int_equal(count_lines_with(trace, "syncfs("), 3);
            assert_int_equal(count_lines_with(trace, " fsync("), 3);
        } else { /* before 5.8 syncfs hides write errors: an fsync a file */
            assert_int_equal(count_lines_with(trace, "syncfs("), 0);
            assert_int_equal(count_lines_with(trace, " fsync("), 43);
        }
        assert_int_equal(count_lines_with(trace, "fdatasync("), 0);
        free(trace);
        for (int i = 0; i < 40; i++) {
            char path[640];
            size_t len = 0;
            snprintf(path, sizeof path, "%s/%02d.pbm", dir, i);
            char *bytes = tu_read_file(path, &len);
            assert_non_null(bytes);
            /* 4 pixels a cell: 120x80 pixels, 15 bytes a row */
            assert_int_equal(len, strlen("P4\n120 80\n") + 15 * 80);
            free(bytes);
        }
    }
}

/* A batch into one stream makes no files, so it has nothing to guard from
 * signals: its maps make no system call each but their writes (a stdio
 * buffer's worth at a time). Watched with strace, counting every call but
 * the writes and the memory allocator's (a sanitizer's runtime makes many):
 * 2,000 maps on one thread make no more calls than 200, give or take a few
 * (a call a map would be 1,800 more). */
static int stream_calls(int maps)
{
    char args[128];
    snprintf(args, sizeof args, "-p type2 -s 1 --size 80x50 -n %d -j 1 -o - >/dev/null", maps);
    char *trace = traced_calls("trace=!write,mmap,munmap,mremap,madvise,mprotect,brk", args);
    const int calls = count_lines_with(trace, "(");
    free(trace);
    return calls;
}

static void a_stream_batch_makes_no_system_call_a_map(void **state)
{
    (void)state;
    const int few = stream_calls(200), many = stream_calls(2000);
    if (many - few >= 100)
        fprintf(stderr, "system calls: %d for 200 maps, %d for 2000\n", few, many);
    assert_true(many - few < 100);
}

/* A Tiled map written through a symbolic link references the tileset image
 * beside the file the link points to, and the image is written there. */
static void a_tiled_map_through_a_link_gets_its_tileset_beside_it(void **state)
{
    (void)state;
    TU_REQUIRE_PNG();
    char dir[512], path[512];
    tu_path(dir, sizeof dir, "maps");
    assert_int_equal(mkdir(dir, 0755), 0);
    put_file(dir, "cave.tmx", OLD_TEXT);
    tu_path(path, sizeof path, "cave.tmx");
    assert_int_equal(symlink("maps/cave.tmx", path), 0);
    tu_result r = run(CHILD_PLAIN, ARGS("-s", "1", "--size", "8x4", "-o", "cave.tmx"));
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char want[64];
    snprintf(want, sizeof want, "cave.tmx %s ", CG_TILESET_IMAGE);
    assert_dir(dir, want);
    assert_dir(tu_workdir, "cave.tmx maps ");
    assert_true(is_link("cave.tmx"));
}

/* The memory budget holds for the whole process: under an address-space
 * limit (`ulimit -v`) just above --max-memory, hostile inputs and runs are
 * refused cleanly, with the message that names the limit they passed, not
 * by running out ("out of memory") or by a signal. Not in a sanitizer
 * build, whose shadow memory needs terabytes of address space. */
static void the_budget_holds_under_an_address_space_limit(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    skip();
#endif
#endif
    /* A map of 8 MB: 2000 rows of 4000 cells. */
    char big[512];
    tu_path(big, sizeof big, "big.txt");
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int y = 0; y < 2000; y++) {
        for (int x = 0; x < 4000; x++)
            fputc(x % 7 ? '.' : '#', f);
        fputc('\n', f);
    }
    assert_int_equal(fclose(f), 0);
    const struct {
        const char *const *args;
        const char *needle;
    } cases[] = {
        {ARGS("--max-memory", AS_BUDGET, "-i", "/dev/zero", "-o", "x.txt"),
         "/dev/zero:1:1048577: a row has more than 1048576 cells"},
        {ARGS("--max-memory", "4M", "-i", "big.txt", "-o", "x.txt"),
         "cannot read 'big.txt': it is larger than the memory budget of 4 MiB"},
        {ARGS("--max-memory", AS_BUDGET, "-p", "/dev/zero", "-o", "x.txt"),
         "/dev/zero:1:1: line too long or not text"},
        {ARGS("--max-memory", AS_BUDGET, "-s", "1", "-W", "2047", "-H", "2049", "--fill", "45",
              "-n", "64", "-j", "64", "-o", "-"),
         "64 2047x2049 maps at once need at least"},
        {ARGS("--max-memory", AS_BUDGET, "-s", "1", "--size", "4x4", "--chunk", "0,0", "--step",
              "smooth 100000", "-o", "x.txt"),
         "over the work a chunk may take"},
        /* The map alone is 69 MiB (a map this big has no second buffer). */
        {ARGS("--max-memory", AS_BUDGET, "-s", "1", "--size", "24000x24000", "-o", "x.txt"),
         "over the memory budget of 64 MiB"},
        /* The map is 58 MiB; labelling its first stripe of noise passes the
         * budget (at 10000x10000 keep-largest now fits: 27 MiB). */
        {ARGS("--max-memory", AS_BUDGET, "-s", "1", "--size", "22000x22000", "--fill", "45",
              "--step", "keep-largest", "-o", "x.txt"),
         "needs more than the memory budget"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r = run(CHILD_AS, cases[i].args);
        if (r.status == 126) {
            tu_result_free(&r);
            skip();
        }
        assert_failed_with(&r, cases[i].needle);
        tu_result_free(&r);
    }
    assert_dir(tu_workdir, "big.txt ");
}

int main(void)
{
#define CASE(f) cmocka_unit_test_setup_teardown(f, setup, tu_workdir_teardown)
    const struct CMUnitTest tests[] = {
        CASE(a_file_size_limit_fails_the_write_and_leaves_no_file),
        CASE(a_full_device_fails_the_write),
        CASE(missing_folders_and_folders_as_output_fail_at_once),
        CASE(a_read_only_folder_refuses_the_output),
        CASE(a_read_only_file_system_refuses_the_output),
        CASE(signals_mid_run_leave_no_temporary_and_keep_the_old_file),
        CASE(a_signal_at_any_time_leaves_the_old_file_or_the_new_one),
        CASE(an_interrupted_batch_keeps_only_complete_maps),
        CASE(closed_standard_fds_never_take_a_map),
        CASE(symlinks_are_written_through_or_refused),
        CASE(a_replaced_file_keeps_its_mode_and_owner),
        CASE(stats_only_for_maps_that_reached_stdout),
        CASE(a_batch_syncs_each_round_of_files_once),
        CASE(a_stream_batch_makes_no_system_call_a_map),
        CASE(a_tiled_map_through_a_link_gets_its_tileset_beside_it),
        CASE(the_budget_holds_under_an_address_space_limit),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
