/* What the runtimes ask of the machine before main: the transparent huge
 * page size the Go runtime reads from sysfs, and sysinfo(2), which glibc's
 * qsort and sysconf(_SC_PHYS_PAGES) call.  Only what holds on any machine
 * is printed: the sizes themselves are the host's.  And /proc/self/maps,
 * where glibc's pthread_getattr_np (Rust's std at start-up) finds the
 * main thread's stack.  And the scheduling policy glibc's
 * pthread_getschedparam reads: SCHED_OTHER at priority 0.  And the flags
 * a locked cmpxchg8b (i386) or cmpxchg16b (x86_64) leaves: it sets ZF and
 * leaves the others as the add before it made them, as i386 glibc's 64-bit
 * atomics (and the Go and Rust runtimes') rely on.
 *   machine thp | sysinfo | maps | sched | cmpxchg_flags */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "show_result.h"

#define THP "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

static void do_thp(void)
{
    char buf[64];
    int fd = open(THP, O_RDONLY);
    show("open", fd < 0 ? -1 : 0);
    long n = read(fd, buf, sizeof(buf) - 1);
    show("read", n);
    buf[n > 0 ? n : 0] = 0;
    printf("  contents %s", buf);
    show("read at the end", read(fd, buf, sizeof(buf)));
    n = pread(fd, buf, 4, 3);
    show("pread 4 at 3", n);
    printf("  got %.*s\n", (int)(n > 0 ? n : 0), buf);
    show("write", write(fd, "1\n", 2));
    struct stat st;
    show("fstat", fstat(fd, &st));
    printf("  regular %d, mode %o\n", S_ISREG(st.st_mode), (unsigned)(st.st_mode & 07777));
    close(fd);
    show("open for writing", open(THP, O_WRONLY));
    show("open read-write", open(THP, O_RDWR));
}

static int pow2(unsigned long v) { return v && !(v & (v - 1)); }

static void do_sysinfo(void)
{
    struct sysinfo si;
    memset(&si, 0xa5, sizeof(si));
    show("sysinfo", syscall(SYS_sysinfo, &si));
    printf("  uptime > 0 %d\n", si.uptime > 0);
    printf("  mem_unit a power of two up to a page %d\n", pow2(si.mem_unit) && si.mem_unit <= 4096);
    printf("  totalram > 0 %d, freeram <= totalram %d, bufferram <= totalram %d\n",
           si.totalram > 0, si.freeram <= si.totalram, si.bufferram <= si.totalram);
    printf("  freeswap <= totalswap %d, freehigh <= totalhigh %d\n", si.freeswap <= si.totalswap,
           si.freehigh <= si.totalhigh);
    printf("  procs > 0 %d\n", si.procs > 0);
    /* the kernel clears the structure: padding and _f are zero */
    unsigned char *tail = (unsigned char *)&si.mem_unit + sizeof(si.mem_unit);
    int zero = si.pad == 0;
    for (unsigned char *p = tail; p < (unsigned char *)(&si + 1); p++)
        zero &= *p == 0;
    printf("  padding zero %d\n", zero);
    uint64_t total = (uint64_t)si.totalram * si.mem_unit;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    printf("  _SC_PHYS_PAGES is totalram %d\n", (uint64_t)pages * (uint64_t)page / 4096 ==
                                                    total / 4096);
    printf("  _SC_AVPHYS_PAGES > 0 %d\n", sysconf(_SC_AVPHYS_PAGES) > 0);
    show("sysinfo(NULL)", syscall(SYS_sysinfo, NULL));
    show("sysinfo(16)", syscall(SYS_sysinfo, (void *)16));
    show("sysinfo(past user space)", syscall(SYS_sysinfo, (void *)-64L));
}

/* The line of /proc/self/maps that holds `addr`, or 0. */
static int maps_line(uintptr_t addr, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= addr && addr < hi) {
            snprintf(out, len, "%s", line);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* The name column: what follows the inode, or "" */
static const char *name_of(const char *line)
{
    const char *p = line;
    for (int field = 0; field < 5 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    if (!p)
        return "?";
    while (*p == ' ')
        p++;
    return p;
}

static void do_maps(void)
{
    int local = 0;
    char line[512], exe[256] = "";
    long n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = 0;

    FILE *f = fopen("/proc/self/maps", "r");
    show("open", f ? 0 : -1);
    unsigned long prev_hi = 0;
    int lines = 0, well_formed = 1, ordered = 1;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi, off, ino;
        char perms[8];
        unsigned maj, min;
        int used = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &lo, &hi, perms, &off, &maj, &min, &ino,
                   &used) < 7 || strlen(perms) != 4 || lo >= hi || lo % 4096 || hi % 4096)
            well_formed = 0;
        if (lo < prev_hi)
            ordered = 0;
        prev_hi = hi;
        lines++;
    }
    if (f)
        fclose(f);
    printf("  lines > 3 %d, each well formed %d, in order without overlap %d\n", lines > 3,
           well_formed, ordered);

    int in = maps_line((uintptr_t)&local, line, sizeof(line));
    printf("  a local variable: in a line %d, rw-p %d, [stack] %d\n", in, !strncmp(strchr(line, ' ') + 1, "rw-p", 4),
           !strcmp(name_of(line), "[stack]\n"));
    char *name_at = strstr(line, "[stack]");
    printf("  its name at column 73 %d\n", name_at && name_at - line == 73);
    in = maps_line((uintptr_t)&do_maps, line, sizeof(line));
    printf("  this function: in a line %d, r-xp %d, named by the program's path %d\n", in,
           !strncmp(strchr(line, ' ') + 1, "r-xp", 4), !strncmp(name_of(line), exe, strlen(exe)) &&
           name_of(line)[strlen(exe)] == '\n');
    void *small = malloc(64);
    in = maps_line((uintptr_t)small, line, sizeof(line));
    printf("  a small malloc: [heap] %d\n", in && !strcmp(name_of(line), "[heap]\n"));
    char *none = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    in = maps_line((uintptr_t)none + 4096, line, sizeof(line));
    size_t len = strlen(line);
    printf("  PROT_NONE anonymous: ---p %d, no name %d, ends \"0 \\n\" %d\n",
           !strncmp(strchr(line, ' ') + 1, "---p", 4), !strcmp(name_of(line), "\n"),
           len > 3 && !strcmp(line + len - 3, "0 \n"));
    mprotect(none + 4096, 4096, PROT_READ);
    in = maps_line((uintptr_t)none, line, sizeof(line));
    unsigned long lo, hi;
    sscanf(line, "%lx-%lx", &lo, &hi);
    printf("  mprotect of its middle page splits it: %d\n", lo == (uintptr_t)none && hi == (uintptr_t)none + 4096);

    pthread_attr_t a;
    void *addr;
    size_t size;
    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    show("pthread_getattr_np", pthread_getattr_np(pthread_self(), &a) ? -1 : 0);
    pthread_attr_getstack(&a, &addr, &size);
    printf("  main's stack holds a local %d, its size within a MiB below RLIMIT_STACK %d\n",
           (uintptr_t)addr <= (uintptr_t)&local && (uintptr_t)&local < (uintptr_t)addr + size,
           size <= rl.rlim_cur && size + (1 << 20) > rl.rlim_cur);
    /* mode 0444: root's DAC override opens it for writing, and a proc
     * file without a write method then refuses the write */
    int fd = open("/proc/self/maps", O_WRONLY);
    show("open for writing", fd < 0 ? -1 : 0);
    show("write", write(fd, "x", 1));
}

static void do_sched(void)
{
    struct sched_param p = { .sched_priority = -1 };
    show("sched_getscheduler(0)", syscall(SYS_sched_getscheduler, 0));
    show("sched_getscheduler(self)", syscall(SYS_sched_getscheduler, getpid()));
    show("sched_getscheduler(-1)", syscall(SYS_sched_getscheduler, -1));
    show("sched_getscheduler(no task)", syscall(SYS_sched_getscheduler, 0x3fffffff));
    show("sched_getparam(0)", syscall(SYS_sched_getparam, 0, &p));
    printf("  sched_priority %d\n", p.sched_priority);
    show("sched_getparam(self, NULL)", syscall(SYS_sched_getparam, getpid(), NULL));
    show("sched_getparam(-1)", syscall(SYS_sched_getparam, -1, &p));
    show("sched_getparam(no task)", syscall(SYS_sched_getparam, 0x3fffffff, &p));
    show("sched_getparam(0, 16)", syscall(SYS_sched_getparam, 0, (void *)16));
    show("sched_getparam(no task, 16)", syscall(SYS_sched_getparam, 0x3fffffff, (void *)16));
}

/* CF, PF, AF, ZF, SF and OF after add; lock cmpxchg8b/16b, summed over
 * operands that set each of them, with the compare failing every other
 * time. */
static void do_cmpxchg_flags(void)
{
    static _Alignas(16) uint64_t mem[2];
    unsigned sum = 0;
    uint32_t x = 1;
    for (int i = 0; i < 100000; i++) {
        x = x * 1103515245u + 12345u;
        /* a holds the flags after the pop */
        unsigned long a = x, b = x ^ 0x9e3779b9u;
        mem[0] = i & 1 ? 0 : 5;
        mem[1] = 0;
#ifdef __x86_64__
        unsigned long lo = 0, hi = 0, nlo = 1, nhi = 0;
        __asm__ volatile("add %[b], %[a]\n\tlock cmpxchg16b %[m]\n\tpushf\n\tpop %[a]"
                         : [a] "+r"(a), "+a"(lo), "+d"(hi), [m] "+m"(*(__int128 *)mem)
                         : [b] "r"(b), "b"(nlo), "c"(nhi)
                         : "cc", "memory");
#else
        /* ebx may hold the GOT pointer: nlo goes in through an xchg,
         * which leaves the flags alone. */
        uint32_t lo = 0, hi = 0, nlo = 1, nhi = 0;
        __asm__ volatile("add %[b], %[a]\n\txchg %%ebx, %[nlo]\n\tlock cmpxchg8b %[m]\n\t"
                         "xchg %%ebx, %[nlo]\n\tpushf\n\tpop %[a]"
                         : [a] "+r"(a), "+a"(lo), "+d"(hi), [m] "+m"(*(uint64_t *)mem),
                           [nlo] "+r"(nlo)
                         : [b] "m"(b), "c"(nhi)
                         : "cc", "memory");
#endif
        sum = sum * 31 + (unsigned)(a & 0x8d5);
    }
    printf("lock cmpxchg%s: flags checksum %08x\n", sizeof(long) == 8 ? "16b" : "8b", sum);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "thp"))
        do_thp();
    else if (!strcmp(c, "sysinfo"))
        do_sysinfo();
    else if (!strcmp(c, "maps"))
        do_maps();
    else if (!strcmp(c, "sched"))
        do_sched();
    else if (!strcmp(c, "cmpxchg_flags"))
        do_cmpxchg_flags();
    else
        return 2;
    return 0;
}
