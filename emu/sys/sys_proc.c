/* Process-wide calls of the personality: identity, limits, thread state,
 * randomness, exit.  None of them acts on the host; the few that read it
 * (ids, limits) only report what a native run would see. */
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "abi/bytes_le.h"
#include "abi/caps_linux.h"
#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/limits.h"
#include "emu/kernel/rseq.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/tls.h"
#include "emu/kernel/vfile.h"
#include "emu/kernel/vfs.h"
#include "emu/sys/sys.h"
#include "emu/sys/timekeeping.h"

SYS(getpgrp) { (void)a, (void)t; return getpgrp(); }
SYS(getuid) { (void)a, (void)t; return getuid(); }
SYS(geteuid) { (void)a, (void)t; return geteuid(); }
SYS(getgid) { (void)a, (void)t; return getgid(); }
SYS(getegid) { (void)a, (void)t; return getegid(); }

SYS(uname)
{
    char u[6][65];
    memset(u, 0, sizeof(u));
    g_strlcpy(u[0], "Linux", 65);
    g_strlcpy(u[1], "localhost", 65); /* the host's name is not the guest's business */
    if (t->profile == PROFILE_2611)
        g_strlcpy(u[2], "2.6.11", 65);
    else
        g_snprintf(u[2], 65, "%u.%u.%u-seccomp-emu", t->release[0], t->release[1], t->release[2]);
    g_strlcpy(u[3], "#1 SMP seccomp-emu", 65);
    /* A 32-bit program on a 64-bit kernel sees x86_64 too. */
    g_strlcpy(u[4], "x86_64", 65);
    g_strlcpy(u[5], "(none)", 65);
    return mm_write(t->mm, uarg(t, a[0]), u, sizeof(u)) ? 0 : -EFAULT_LINUX;
}

/* Limits start as the host's, so the guest sees what a native child would,
 * and only change inside the task.  Those a host lacks start as Linux sets
 * them for init (INIT_RLIMITS; NPROC and SIGPENDING scale with memory
 * there, a modest fixed number here). */
void task_init_rlimits(struct task *t)
{
    static const struct {
        int linux_, host;
    } map[] = {
        { RLIMIT_CPU_LINUX, RLIMIT_CPU },   { RLIMIT_FSIZE_LINUX, RLIMIT_FSIZE },
        { RLIMIT_DATA_LINUX, RLIMIT_DATA }, { RLIMIT_STACK_LINUX, RLIMIT_STACK },
        { RLIMIT_CORE_LINUX, RLIMIT_CORE }, { RLIMIT_NOFILE_LINUX, RLIMIT_NOFILE },
        { RLIMIT_AS_LINUX, RLIMIT_AS },
#ifdef RLIMIT_RSS
        { RLIMIT_RSS_LINUX, RLIMIT_RSS },
#endif
#ifdef RLIMIT_NPROC
        { RLIMIT_NPROC_LINUX, RLIMIT_NPROC },
#endif
#ifdef RLIMIT_MEMLOCK
        { RLIMIT_MEMLOCK_LINUX, RLIMIT_MEMLOCK },
#endif
#ifdef RLIMIT_LOCKS
        { RLIMIT_LOCKS_LINUX, RLIMIT_LOCKS },
#endif
#ifdef RLIMIT_SIGPENDING
        { RLIMIT_SIGPENDING_LINUX, RLIMIT_SIGPENDING },
#endif
#ifdef RLIMIT_MSGQUEUE
        { RLIMIT_MSGQUEUE_LINUX, RLIMIT_MSGQUEUE },
#endif
#ifdef RLIMIT_NICE
        { RLIMIT_NICE_LINUX, RLIMIT_NICE },
#endif
#ifdef RLIMIT_RTPRIO
        { RLIMIT_RTPRIO_LINUX, RLIMIT_RTPRIO },
#endif
#ifdef RLIMIT_RTTIME
        { RLIMIT_RTTIME_LINUX, RLIMIT_RTTIME },
#endif
    };
    static const struct {
        int res;
        uint64_t value;
    } init_rlimits[] = {
        { RLIMIT_NPROC_LINUX, 4096 },         { RLIMIT_MEMLOCK_LINUX, 8u << 20 },
        { RLIMIT_SIGPENDING_LINUX, 4096 },    { RLIMIT_MSGQUEUE_LINUX, 819200 },
        { RLIMIT_NICE_LINUX, 0 },             { RLIMIT_RTPRIO_LINUX, 0 },
    };
    for (int i = 0; i < RLIM_NLIMITS_LINUX; i++)
        t->group->rlim[i].cur = t->group->rlim[i].max = RLIM_INFINITY_LINUX;
    for (size_t i = 0; i < G_N_ELEMENTS(init_rlimits); i++)
        t->group->rlim[init_rlimits[i].res].cur = t->group->rlim[init_rlimits[i].res].max = init_rlimits[i].value;
    for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
        struct rlimit r;
        if (getrlimit(map[i].host, &r) == 0) {
            t->group->rlim[map[i].linux_].cur = r.rlim_cur == RLIM_INFINITY ? RLIM_INFINITY_LINUX : r.rlim_cur;
            t->group->rlim[map[i].linux_].max = r.rlim_max == RLIM_INFINITY ? RLIM_INFINITY_LINUX : r.rlim_max;
        }
    }
    t->group->rlim[RLIMIT_NOFILE_LINUX].cur = MIN(t->group->rlim[RLIMIT_NOFILE_LINUX].cur, FD_MAX_GUEST);
    t->group->rlim[RLIMIT_NOFILE_LINUX].max = MIN(t->group->rlim[RLIMIT_NOFILE_LINUX].max, FD_MAX_GUEST);
}

/* fs/file.c's sysctl_nr_open default: no RLIMIT_NOFILE above it. */
#define NR_OPEN_LINUX (1u << 20)

/* do_prlimit() with a new limit.  The guest never holds CAP_SYS_RESOURCE,
 * whatever its uid: the hard limits carry the user's --memory and
 * --cpu-time, which it must not raise (natively root may). */
static int64_t set_limit(struct task *t, unsigned res, uint64_t cur, uint64_t max)
{
    if (cur > max)
        return -EINVAL_LINUX;
    if (res == RLIMIT_NOFILE_LINUX && max > NR_OPEN_LINUX)
        return -EPERM_LINUX;
    if (max > t->group->rlim[res].max)
        return -EPERM_LINUX;
    t->group->rlim[res].cur = cur;
    t->group->rlim[res].max = max;
    limits_rlimit_changed(t, res);
    return 0;
}

SYS(prlimit64)
{
    int32_t pid = (int32_t)a[0];
    unsigned res = (unsigned)a[1];
    uint64_t newp = uarg(t, a[2]), oldp = uarg(t, a[3]);
    uint64_t want[2];
    /* The new limit is read first, then the task looked up, then the
     * resource checked (sys_prlimit64, do_prlimit). */
    if (newp && !mm_read(t->mm, newp, want, sizeof(want)))
        return -EFAULT_LINUX;
    /* Any task of the guest names its process's limits. */
    struct task *p = pid ? task_lookup(pid) : t;
    if (!p || p->exited)
        return -ESRCH_LINUX;
    if (res >= RLIM_NLIMITS_LINUX)
        return -EINVAL_LINUX;
    uint64_t old[2] = { p->group->rlim[res].cur, p->group->rlim[res].max };
    if (newp) {
        int64_t r = set_limit(p, res, want[0], want[1]);
        if (r < 0)
            return r;
    }
    if (oldp && !mm_write(t->mm, oldp, old, sizeof(old)))
        return -EFAULT_LINUX;
    return 0;
}

static int64_t get_limit(struct task *t, const uint64_t a[6], uint32_t compat_inf)
{
    unsigned res = (unsigned)a[0];
    if (res >= RLIM_NLIMITS_LINUX)
        return -EINVAL_LINUX;
    if (!in_compat_syscall(t)) {
        uint64_t v[2] = { t->group->rlim[res].cur, t->group->rlim[res].max };
        return mm_write(t->mm, a[1], v, sizeof(v)) ? 0 : -EFAULT_LINUX;
    }
    uint32_t v[2];
    for (int i = 0; i < 2; i++) {
        uint64_t x = i ? t->group->rlim[res].max : t->group->rlim[res].cur;
        v[i] = x > compat_inf ? compat_inf : (uint32_t)x;
    }
    return mm_write(t->mm, (uint32_t)a[1], v, sizeof(v)) ? 0 : -EFAULT_LINUX;
}

SYS(getrlimit) { return get_limit(t, a, 0xffffffffu); }
SYS(old_getrlimit) { return get_limit(t, a, 0x7fffffffu); }

SYS(setrlimit)
{
    unsigned res = (unsigned)a[0];
    uint64_t v[2];
    if (!in_compat_syscall(t)) {
        if (!mm_read(t->mm, a[1], v, sizeof(v)))
            return -EFAULT_LINUX;
    } else {
        uint32_t w[2];
        if (!mm_read(t->mm, (uint32_t)a[1], w, sizeof(w)))
            return -EFAULT_LINUX;
        for (int i = 0; i < 2; i++)
            v[i] = w[i] == 0xffffffffu ? RLIM_INFINITY_LINUX : w[i];
    }
    /* copied in before the resource is looked at */
    if (res >= RLIM_NLIMITS_LINUX)
        return -EINVAL_LINUX;
    return set_limit(t, res, v[0], v[1]);
}

#define RUSAGE_SELF_LINUX 0
#define RUSAGE_CHILDREN_LINUX (-1)
#define RUSAGE_THREAD_LINUX 1

/* getrusage(2).  CPU time is the emulated kernel's accounting
 * (emu/kernel/sched.c: the host CPU time each task used while it held the
 * CPU), reported as user time: the process's, the calling thread's, or
 * that of the children it has waited for.  Peak memory, page faults and
 * context switches are seccomp-emu's own; the fields Linux never fills
 * stay zero. */
SYS(getrusage)
{
    int who = (int)a[0];
    if (who != RUSAGE_SELF_LINUX && who != RUSAGE_CHILDREN_LINUX && who != RUSAGE_THREAD_LINUX)
        return -EINVAL_LINUX;
    int64_t f[18] = { 0 }; /* utime s, us; stime s, us; then the 14 longs */
    int64_t cpu = who == RUSAGE_SELF_LINUX     ? sched_group_cputime(t->group)
                  : who == RUSAGE_THREAD_LINUX ? sched_task_cputime(t)
                                               : t->group->children_cputime_ns;
    f[0] = cpu / 1000000000, f[1] = cpu % 1000000000 / 1000;
    if (who != RUSAGE_CHILDREN_LINUX) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) {
#if defined(__APPLE__)
            f[4] = ru.ru_maxrss / 1024; /* bytes there, KiB in Linux */
#else
            f[4] = ru.ru_maxrss;
#endif
            f[8] = ru.ru_minflt, f[9] = ru.ru_majflt;
            f[16] = ru.ru_nvcsw, f[17] = ru.ru_nivcsw;
        }
    }
    if (in_compat_syscall(t)) {
        int32_t w[18];
        for (int i = 0; i < 18; i++)
            w[i] = (int32_t)f[i];
        return mm_write(t->mm, (uint32_t)a[1], w, sizeof(w)) ? 0 : -EFAULT_LINUX;
    }
    return mm_write(t->mm, a[1], f, sizeof(f)) ? 0 : -EFAULT_LINUX;
}

/* sysinfo(2) describes the emulated machine: uptime from the clock that
 * CLOCK_BOOTTIME reads, the host's RAM as the machine's, capped by the
 * guest's --memory, free what the guest has not mapped, no swap, no high
 * memory, and its own tasks as procs with no load beside them.  Byte
 * units (mem_unit 1), as do_sysinfo() gives a 64-bit kernel's callers;
 * compat callers get compat_sys_sysinfo()'s scaling into 32 bits. */
SYS(sysinfo)
{
    int64_t sec = 0, nsec = 0;
    guest_clock_gettime(t, CLOCK_BOOTTIME_LINUX, &sec, &nsec);
    uint64_t total = 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        total = (uint64_t)pages * (uint64_t)page;
    if (t->mm->max_mapped && (total == 0 || t->mm->max_mapped < total))
        total = t->mm->max_mapped;
    uint64_t free_ = total > t->mm->mapped ? total - t->mm->mapped : 0;
    uint64_t uptime = (uint64_t)sec + (nsec ? 1 : 0), procs = task_count();
    if (!in_compat_syscall(t)) {
        /* struct sysinfo: long uptime, loads[3], totalram, freeram,
         * sharedram, bufferram, totalswap, freeswap; u16 procs, pad;
         * long totalhigh, freehigh; u32 mem_unit; char _f[0] */
        uint8_t b[112] = { 0 };
        put_le64(b, uptime);
        put_le64(b + 32, total);
        put_le64(b + 40, free_);
        put_le16(b + 80, (uint16_t)procs);
        put_le32(b + 104, 1);
        return mm_write(t->mm, a[0], b, sizeof(b)) ? 0 : -EFAULT_LINUX;
    }
    /* compat_sys_sysinfo(): memory that does not fit in 32 bits is
     * counted in pages instead */
    unsigned shift = 0, unit = 1;
    if (total > UINT32_MAX)
        for (; unit < PAGE_SIZE_LINUX; unit <<= 1)
            shift++;
    uint8_t b[64] = { 0 };
    put_le32(b, (uint32_t)uptime);
    put_le32(b + 16, (uint32_t)(total >> shift));
    put_le32(b + 20, (uint32_t)(free_ >> shift));
    put_le16(b + 40, (uint16_t)procs);
    put_le32(b + 52, unit);
    return mm_write(t->mm, (uint32_t)a[0], b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

SYS(rseq) { return rseq_call(t, uarg(t, a[0]), (uint32_t)a[1], (int)a[2], (uint32_t)a[3]); }

SYS(arch_prctl)
{
    if (in_compat_syscall(t))
        return -EINVAL_LINUX; /* the compat call knows only vDSO mapping */
    uint64_t addr = a[1];
    switch ((int)a[0]) {
    case ARCH_SET_FS_LINUX:
    case ARCH_SET_GS_LINUX:
        if (addr >= TASK_SIZE_64_LINUX)
            return -EPERM_LINUX;
        /* do_arch_prctl_64(): the selector becomes null (loadseg(FS, 0)),
         * then the base is written. */
        cpu_set_reg(t->cpu, (int)a[0] == ARCH_SET_FS_LINUX ? UC_X86_REG_FS : UC_X86_REG_GS, 0);
        cpu_set_reg(t->cpu, (int)a[0] == ARCH_SET_FS_LINUX ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE,
                    addr);
        return 0;
    case ARCH_GET_FS_LINUX:
    case ARCH_GET_GS_LINUX: {
        uint64_t v = cpu_reg(t->cpu, (int)a[0] == ARCH_GET_FS_LINUX ? UC_X86_REG_FS_BASE
                                                                 : UC_X86_REG_GS_BASE);
        return mm_write(t->mm, addr, &v, 8) ? 0 : -EFAULT_LINUX;
    }
    default:
        return -EINVAL_LINUX;
    }
}

SYS(set_thread_area)
{
    int idx;
    uint8_t d[8];
    int r = tls_read_user_desc(t, (uint32_t)a[0], true, &idx, d);
    if (r < 0)
        return r;
    memcpy(t->tls[idx - GDT_ENTRY_TLS_MIN_LINUX], d, 8);
    err_t e = cpu_set_tls(t->cpu, (unsigned)idx, d);
    if (e) {
        err_free(e);
        return -EINVAL_LINUX;
    }
    return 0;
}

SYS(modify_ldt) { return ldt_modify(t, (int)a[0], uarg(t, a[1]), uarg(t, a[2])); }

SYS(get_thread_area)
{
    uint64_t up = (uint32_t)a[0];
    uint32_t u[4];
    if (!mm_read(t->mm, up, u, 4))
        return -EFAULT_LINUX;
    int idx = (int32_t)u[0];
    if (idx < GDT_ENTRY_TLS_MIN_LINUX || idx >= GDT_ENTRY_TLS_MIN_LINUX + GDT_ENTRY_TLS_ENTRIES_LINUX)
        return -EINVAL_LINUX;
    const uint8_t *d = t->tls[idx - GDT_ENTRY_TLS_MIN_LINUX];
    uint32_t lo, hi;
    memcpy(&lo, d, 4);
    memcpy(&hi, d + 4, 4);
    u[1] = (lo >> 16) | ((hi & 0xff) << 16) | (hi & 0xff000000);
    u[2] = (lo & 0xffff) | (hi & 0xf0000);
    uint32_t type = (hi >> 8) & 0xf;
    u[3] = ((hi >> 22) & 1) | (((type >> 2) & 3) << 1) | ((((type >> 1) & 1) ^ 1) << 3) |
           (((hi >> 23) & 1) << 4) | ((((hi >> 15) & 1) ^ 1) << 5) | (((hi >> 20) & 1) << 6);
    if (lo == 0 && hi == 0)
        u[3] = (1 << 3) | (1 << 5); /* the empty descriptor */
    return mm_write(t->mm, up, u, sizeof(u)) ? 0 : -EFAULT_LINUX;
}

SYS(getrandom)
{
    unsigned flags = (unsigned)a[2];
    if (flags & ~7u || (flags & 6u) == 6u) /* NONBLOCK|RANDOM|INSECURE; not both of the last */
        return -EINVAL_LINUX;
    uint64_t buf = uarg(t, a[0]), count = uarg(t, a[1]);
    /* import_ubuf(): the count is cut to MAX_RW_COUNT, then access_ok()
     * refuses a range past the 64-bit user limit, even an empty one. */
    if (count > MAX_RW_COUNT_LINUX)
        count = MAX_RW_COUNT_LINUX;
    if (count > TASK_SIZE_64_LINUX || buf > TASK_SIZE_64_LINUX - count)
        return -EFAULT_LINUX;
    return vfile_fill(t, buf, count, true);
}

static int64_t do_readlink(struct task *t, int dirfd, uint64_t upath, uint64_t ubuf,
                           int64_t size)
{
    /* The kernel checks bufsiz before it looks at the path (do_readlinkat). */
    if ((int32_t)size <= 0)
        return -EINVAL_LINUX;
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, upath), path, sizeof(path));
    if (r < 0)
        return r;
    char target[PATH_MAX_LINUX];
    int64_t len;
    /* /proc/<pid>/exe of any task the guest can name; a zombie's has no
     * address space left to tell. */
    struct task *p = vfile_proc_task(t, path, "exe");
    if (p) {
        if (!p->mm)
            return -ENOENT_LINUX;
        len = (int64_t)g_strlcpy(target, p->mm->exe_path, sizeof(target));
    } else if ((len = vfile_fd_link(t, path, target, sizeof(target))) != 0) {
        if (len < 0)
            return len;
    } else {
        /* A symlink of a grant, read as it is on the host. */
        len = vfs_readlink(t, dirfd, path, target, sizeof(target));
        if (len < 0)
            return len;
    }
    size_t n = MIN((size_t)len, (size_t)(int32_t)size);
    return mm_write(t->mm, uarg(t, ubuf), target, n) ? (int64_t)n : -EFAULT_LINUX;
}

SYS(readlink) { return do_readlink(t, AT_FDCWD_LINUX, a[0], a[1], (int64_t)a[2]); }
SYS(readlinkat) { return do_readlink(t, (int)a[0], a[1], a[2], (int64_t)a[3]); }
/* prctl(2): the task's name here, the seccomp and no_new_privs options in
 * emu/kernel/seccomp.c, every other option -EINVAL. */
SYS(prctl)
{
    switch ((int)a[0]) {
    case PR_SET_NAME_LINUX: {
        /* strncpy_from_user of at most TASK_COMM_LEN - 1 bytes: a longer
         * name is cut, an unreadable byte before its end is -EFAULT. */
        char name[TASK_COMM_LEN_LINUX] = { 0 };
        int r = mm_read_string(t->mm, uarg(t, a[1]), name, sizeof(name) - 1);
        if (r == -EFAULT_LINUX)
            return r;
        memcpy(t->comm, name, sizeof(t->comm));
        return 0;
    }
    case PR_GET_NAME_LINUX:
        return mm_write(t->mm, uarg(t, a[1]), t->comm, sizeof(t->comm)) ? 0 : -EFAULT_LINUX;
    case PR_CAPBSET_READ_LINUX:
        /* libcap counts the capabilities the kernel knows with it. */
        if (a[1] > CAP_LAST_CAP_LINUX)
            return -EINVAL_LINUX;
        return (t->cap_bounding >> a[1]) & 1;
    default:
        return seccomp_prctl(t, a);
    }
}
SYS(seccomp) { return seccomp_syscall(t, a); }

/* cap_validate_magic(): the words per set of a header version; an unknown
 * one is told the preferred version. */
static int64_t cap_header(struct task *t, uint64_t uhdr, unsigned *words)
{
    uint32_t version;
    if (!mm_read(t->mm, uhdr, &version, 4))
        return -EFAULT_LINUX;
    switch (version) {
    case LINUX_CAPABILITY_VERSION_1:
        *words = 1;
        return 0;
    case LINUX_CAPABILITY_VERSION_2:
    case LINUX_CAPABILITY_VERSION_3:
        *words = 2;
        return 0;
    default: {
        uint32_t preferred = LINUX_CAPABILITY_VERSION_3;
        return mm_write(t->mm, uhdr, &preferred, 4) ? -EINVAL_LINUX : -EFAULT_LINUX;
    }
    }
}

/* capget(2): any guest task's sets (--caps at the start, capset after). */
SYS(capget)
{
    uint64_t uhdr = uarg(t, a[0]), udata = uarg(t, a[1]);
    unsigned words;
    int64_t r = cap_header(t, uhdr, &words);
    if (!udata || r)
        return !udata && r == -EINVAL_LINUX ? 0 : r;
    int32_t pid;
    if (!mm_read(t->mm, uhdr + 4, &pid, 4))
        return -EFAULT_LINUX;
    if (pid < 0)
        return -EINVAL_LINUX;
    struct task *p = pid && pid != t->tid ? task_lookup(pid) : t;
    if (!p)
        return -ESRCH_LINUX;
    uint32_t d[6]; /* struct __user_cap_data_struct per word: effective, permitted, inheritable */
    for (unsigned w = 0; w < words; w++) {
        d[3 * w] = (uint32_t)(p->cap_effective >> (32 * w));
        d[3 * w + 1] = (uint32_t)(p->cap_permitted >> (32 * w));
        d[3 * w + 2] = (uint32_t)(p->cap_inheritable >> (32 * w));
    }
    return mm_write(t->mm, udata, d, 12 * words) ? 0 : -EFAULT_LINUX;
}

/* capset(2) on itself: the new sets must stay within what it has
 * (cap_capset's rules without file capabilities: effective within
 * permitted, permitted never grows, inheritable within permitted and
 * the bounding set, as without CAP_SETPCAP's widening). */
SYS(capset)
{
    uint64_t uhdr = uarg(t, a[0]), udata = uarg(t, a[1]);
    unsigned words;
    int64_t r = cap_header(t, uhdr, &words);
    if (r)
        return r;
    int32_t pid;
    if (!mm_read(t->mm, uhdr + 4, &pid, 4))
        return -EFAULT_LINUX;
    if (pid && pid != t->tid)
        return -EPERM_LINUX;
    uint32_t d[6] = { 0 };
    if (!mm_read(t->mm, udata, d, 12 * words))
        return -EFAULT_LINUX;
    uint64_t eff = 0, prm = 0, inh = 0;
    for (unsigned w = 0; w < words; w++) {
        eff |= (uint64_t)d[3 * w] << (32 * w);
        prm |= (uint64_t)d[3 * w + 1] << (32 * w);
        inh |= (uint64_t)d[3 * w + 2] << (32 * w);
    }
    eff &= CAP_ALL_LINUX, prm &= CAP_ALL_LINUX, inh &= CAP_ALL_LINUX;
    uint64_t inh_room = t->cap_inheritable | (t->cap_permitted & t->cap_bounding);
    if (!((t->cap_effective >> 8) & 1)) /* without CAP_SETPCAP */
        inh_room = t->cap_inheritable | t->cap_permitted;
    if ((inh & ~inh_room) || (inh & ~(t->cap_inheritable | t->cap_bounding)) ||
        (prm & ~t->cap_permitted) || (eff & ~prm))
        return -EPERM_LINUX;
    t->cap_effective = eff, t->cap_permitted = prm, t->cap_inheritable = inh;
    return 0;
}
