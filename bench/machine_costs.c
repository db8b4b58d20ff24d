/* machine_costs.c - what the machine charges for the things the last
 * targets of docs/PERFORMANCE.md depend on, apart from cavegen: a system
 * call, a small file made the way a batch makes one, a cache line passed
 * between two cores, and a fresh page. Not built by default (Linux only):
 *
 *   cc -O2 -std=c11 -pthread bench/machine_costs.c -o machine_costs
 *   ./machine_costs [FOLDER]   (default /dev/shm; 20,000 files made there
 *                               in a new subfolder, removed at the end)
 *
 * Each figure is the best of five rounds, in nanoseconds:
 * - syscall: getppid(2), the cheapest system call there is;
 * - file: open(O_CREAT | O_EXCL) of a temporary name, one write of 1,700
 *   bytes (an 80x50 `level` map's PNG), close, rename over the final name:
 *   the least a batch that never leaves a partial file does per map (the
 *   command also syncs on disks; this does not);
 * - line round trip: two threads on two cores handing one cache line back
 *   and forth (half of it is one core's write reaching the other);
 * - page fault: the first write to each 4 KiB page of 64 MiB of fresh
 *   anonymous memory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5
#define FILES 4000 /* a round; ROUNDS rounds */
#define TRIPS 200000
#define FAULT_BYTES ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double best(const double *t)
{
    double b = t[0];
    for (int i = 1; i < ROUNDS; i++)
        b = t[i] < b ? t[i] : b;
    return b;
}

static double syscall_ns(void)
{
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        for (int i = 0; i < 100000; i++)
            syscall(SYS_getppid);
        t[r] = (now() - t0) / 100000;
    }
    return best(t);
}

/* -1 on an error (reported). */
static double file_ns(const char *folder)
{
    char dir[4096], tmp[4200], dst[4200];
    snprintf(dir, sizeof dir, "%s/machine_costs.XXXXXX", folder);
    if (!mkdtemp(dir)) {
        perror(folder);
        return -1;
    }
    static char data[1700];
    double t[ROUNDS];
    int failed = 0;
    for (int r = 0; r < ROUNDS && !failed; r++) {
        double t0 = now();
        for (int i = 0; i < FILES; i++) {
            snprintf(tmp, sizeof tmp, "%s/.%d.png.tmp", dir, i);
            snprintf(dst, sizeof dst, "%s/%d.png", dir, i);
            int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, data, sizeof data) != (ssize_t)sizeof data || close(fd) != 0 ||
                rename(tmp, dst) != 0) {
                perror(tmp);
                failed = 1;
                break;
            }
        }
        t[r] = (now() - t0) / FILES;
        for (int i = 0; i < FILES; i++) { /* not timed */
            snprintf(dst, sizeof dst, "%s/%d.png", dir, i);
            unlink(dst);
        }
    }
    rmdir(dir);
    return failed ? -1 : best(t);
}

static _Alignas(64) atomic_int ball;

static void *other_side(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS * TRIPS; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 1)
            ;
        atomic_store_explicit(&ball, 0, memory_order_release);
    }
    return NULL;
}

/* -1 when no thread starts. */
static double round_trip_ns(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, other_side, NULL) != 0)
        return -1;
    double r_t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        for (int i = 0; i < TRIPS; i++) {
            atomic_store_explicit(&ball, 1, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != 0)
                ;
        }
        r_t[r] = (now() - t0) / TRIPS;
    }
    pthread_join(t, NULL);
    return best(r_t);
}

/* Per 4 KiB page; -1 when the memory is refused. */
static double fault_ns(void)
{
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        char *p = mmap(NULL, FAULT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED)
            return -1;
        madvise(p, FAULT_BYTES, MADV_NOHUGEPAGE); /* a 4 KiB page each */
        double t0 = now();
        for (size_t i = 0; i < FAULT_BYTES; i += 4096)
            p[i] = 1;
        t[r] = (now() - t0) / (double)(FAULT_BYTES / 4096);
        munmap(p, FAULT_BYTES);
    }
    return best(t);
}

int main(int argc, char **argv)
{
    const char *folder = argc > 1 ? argv[1] : "/dev/shm";
    double file = file_ns(folder);
    printf("syscall (getppid)                       %8.0f ns\n", syscall_ns());
    if (file >= 0)
        printf("file in %-31s %8.0f ns\n", folder, file);
    printf("cache line round trip, two threads      %8.0f ns\n", round_trip_ns());
    printf("page fault, 4 KiB                       %8.0f ns\n", fault_ns());
    return file < 0;
}
