/* What the runtimes ask of the machine before main: the transparent huge
 * page size the Go runtime reads from sysfs, and sysinfo(2), which glibc's
 * qsort and sysconf(_SC_PHYS_PAGES) call.  Only what holds on any machine
 * is printed: the sizes themselves are the host's.
 *   machine thp | sysinfo */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#define THP "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

static void show(const char *what, long r)
{
    if (r < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %ld\n", what, r);
    fflush(stdout);
}

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

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "thp"))
        do_thp();
    else if (!strcmp(c, "sysinfo"))
        do_sysinfo();
    else
        return 2;
    return 0;
}
