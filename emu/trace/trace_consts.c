/* Names of the constants and flags of the calls seccomp-emu emulates, as
 * x86 Linux defines them (asm-generic/fcntl.h, asm-generic/mman-common.h,
 * asm/mman.h, asm/prctl.h, linux/prctl.h, linux/seccomp.h, asm-generic/
 * resource.h, asm-generic/ioctls.h, asm-generic/siginfo.h).  The numbers are
 * the guest's; the host's headers never supply them.  Data only: the trace
 * prints with these tables, nothing else reads them. */
#include <string.h>

#include "abi/linux.h"
#include "emu/trace/trace_format.h"

#define SET(name, ...)                                                                        \
    static const struct named name##_v[] = { __VA_ARGS__ };                                   \
    const struct named_set name = { name##_v, G_N_ELEMENTS(name##_v) }

/* The access mode (O_ACCMODE) is printed first by the decoder; these are
 * the other bits, in the order strace prints them. */
SET(trace_open_flags, { 0100, "O_CREAT" }, { 0200, "O_EXCL" }, { 0400, "O_NOCTTY" },
    { 01000, "O_TRUNC" }, { 02000, "O_APPEND" }, { 04000, "O_NONBLOCK" },
    { 04010000, "O_SYNC" }, { 010000, "O_DSYNC" }, { 020000, "O_ASYNC" }, { 040000, "O_DIRECT" },
    { 0100000, "O_LARGEFILE" }, { 020200000, "O_TMPFILE" }, { 0200000, "O_DIRECTORY" },
    { 0400000, "O_NOFOLLOW" }, { 01000000, "O_NOATIME" }, { 02000000, "O_CLOEXEC" },
    { 010000000, "O_PATH" });

SET(trace_prot_flags, { PROT_READ_LINUX, "PROT_READ" }, { PROT_WRITE_LINUX, "PROT_WRITE" },
    { PROT_EXEC_LINUX, "PROT_EXEC" }, { PROT_GROWSDOWN_LINUX, "PROT_GROWSDOWN" },
    { PROT_GROWSUP_LINUX, "PROT_GROWSUP" });

SET(trace_map_types, { MAP_SHARED_LINUX, "MAP_SHARED" }, { MAP_PRIVATE_LINUX, "MAP_PRIVATE" },
    { 0x03, "MAP_SHARED_VALIDATE" });

SET(trace_map_flags, { MAP_FIXED_LINUX, "MAP_FIXED" }, { MAP_ANONYMOUS_LINUX, "MAP_ANONYMOUS" },
    { MAP_32BIT_LINUX, "MAP_32BIT" }, { MAP_GROWSDOWN_LINUX, "MAP_GROWSDOWN" },
    { MAP_DENYWRITE_LINUX, "MAP_DENYWRITE" }, { MAP_EXECUTABLE_LINUX, "MAP_EXECUTABLE" },
    { MAP_LOCKED_LINUX, "MAP_LOCKED" }, { MAP_NORESERVE_LINUX, "MAP_NORESERVE" },
    { MAP_POPULATE_LINUX, "MAP_POPULATE" }, { MAP_NONBLOCK_LINUX, "MAP_NONBLOCK" },
    { MAP_STACK_LINUX, "MAP_STACK" }, { MAP_HUGETLB_LINUX, "MAP_HUGETLB" },
    { 0x80000, "MAP_SYNC" }, { MAP_FIXED_NOREPLACE_LINUX, "MAP_FIXED_NOREPLACE" });

SET(trace_whence, { SEEK_SET_LINUX, "SEEK_SET" }, { SEEK_CUR_LINUX, "SEEK_CUR" },
    { SEEK_END_LINUX, "SEEK_END" }, { 3, "SEEK_DATA" }, { 4, "SEEK_HOLE" });

SET(trace_clocks, { CLOCK_REALTIME_LINUX, "CLOCK_REALTIME" },
    { CLOCK_MONOTONIC_LINUX, "CLOCK_MONOTONIC" },
    { CLOCK_PROCESS_CPUTIME_ID_LINUX, "CLOCK_PROCESS_CPUTIME_ID" },
    { CLOCK_THREAD_CPUTIME_ID_LINUX, "CLOCK_THREAD_CPUTIME_ID" },
    { CLOCK_MONOTONIC_RAW_LINUX, "CLOCK_MONOTONIC_RAW" },
    { CLOCK_REALTIME_COARSE_LINUX, "CLOCK_REALTIME_COARSE" },
    { CLOCK_MONOTONIC_COARSE_LINUX, "CLOCK_MONOTONIC_COARSE" },
    { CLOCK_BOOTTIME_LINUX, "CLOCK_BOOTTIME" }, { 8, "CLOCK_REALTIME_ALARM" },
    { 9, "CLOCK_BOOTTIME_ALARM" }, { 11, "CLOCK_TAI" });

SET(trace_rlimits, { RLIMIT_CPU_LINUX, "RLIMIT_CPU" }, { RLIMIT_FSIZE_LINUX, "RLIMIT_FSIZE" },
    { RLIMIT_DATA_LINUX, "RLIMIT_DATA" },
    { RLIMIT_STACK_LINUX, "RLIMIT_STACK" }, { RLIMIT_CORE_LINUX, "RLIMIT_CORE" },
    { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { RLIMIT_NOFILE_LINUX, "RLIMIT_NOFILE" },
    { 8, "RLIMIT_MEMLOCK" }, { RLIMIT_AS_LINUX, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" },
    { 11, "RLIMIT_SIGPENDING" }, { 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" },
    { 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" });

SET(trace_arch_prctl, { ARCH_SET_GS_LINUX, "ARCH_SET_GS" }, { ARCH_SET_FS_LINUX, "ARCH_SET_FS" },
    { ARCH_GET_FS_LINUX, "ARCH_GET_FS" }, { ARCH_GET_GS_LINUX, "ARCH_GET_GS" },
    { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" }, { 0x3001, "ARCH_CET_STATUS" });

SET(trace_prctl_options, { 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" },
    { 3, "PR_GET_DUMPABLE" }, { 4, "PR_SET_DUMPABLE" }, { 15, "PR_SET_NAME" },
    { 16, "PR_GET_NAME" }, { PR_GET_SECCOMP_LINUX, "PR_GET_SECCOMP" },
    { PR_SET_SECCOMP_LINUX, "PR_SET_SECCOMP" }, { 38, "PR_SET_NO_NEW_PRIVS" },
    { 39, "PR_GET_NO_NEW_PRIVS" });

SET(trace_seccomp_ops, { SECCOMP_SET_MODE_STRICT_LINUX, "SECCOMP_SET_MODE_STRICT" },
    { SECCOMP_SET_MODE_FILTER_LINUX, "SECCOMP_SET_MODE_FILTER" },
    { SECCOMP_GET_ACTION_AVAIL_LINUX, "SECCOMP_GET_ACTION_AVAIL" },
    { SECCOMP_GET_NOTIF_SIZES_LINUX, "SECCOMP_GET_NOTIF_SIZES" });

SET(trace_seccomp_modes, { SECCOMP_MODE_DISABLED_LINUX, "SECCOMP_MODE_DISABLED" },
    { SECCOMP_MODE_STRICT_LINUX, "SECCOMP_MODE_STRICT" }, { 2, "SECCOMP_MODE_FILTER" });

SET(trace_ioctls, { TCGETS_LINUX, "TCGETS" }, { 0x5402, "TCSETS" }, { 0x5403, "TCSETSW" },
    { TIOCGPGRP_LINUX, "TIOCGPGRP" }, { TIOCGWINSZ_LINUX, "TIOCGWINSZ" },
    { 0x5414, "TIOCSWINSZ" }, { FIONREAD_LINUX, "FIONREAD" }, { 0x5421, "FIONBIO" },
    { SECCOMP_IOCTL_NOTIF_RECV_LINUX, "SECCOMP_IOCTL_NOTIF_RECV" },
    { SECCOMP_IOCTL_NOTIF_SEND_LINUX, "SECCOMP_IOCTL_NOTIF_SEND" },
    { SECCOMP_IOCTL_NOTIF_ID_VALID_LINUX, "SECCOMP_IOCTL_NOTIF_ID_VALID" },
    { SECCOMP_IOCTL_NOTIF_ADDFD_LINUX, "SECCOMP_IOCTL_NOTIF_ADDFD" },
    { SECCOMP_IOCTL_NOTIF_SET_FLAGS_LINUX, "SECCOMP_IOCTL_NOTIF_SET_FLAGS" });

SET(trace_fcntl_cmds, { 0, "F_DUPFD" }, { F_GETFD_LINUX, "F_GETFD" }, { F_SETFD_LINUX, "F_SETFD" },
    { F_GETFL_LINUX, "F_GETFL" }, { 4, "F_SETFL" }, { 5, "F_GETLK" }, { 6, "F_SETLK" },
    { 7, "F_SETLKW" }, { 12, "F_GETLK64" }, { 13, "F_SETLK64" }, { 14, "F_SETLKW64" },
    { 1030, "F_DUPFD_CLOEXEC" }, { F_ADD_SEALS_LINUX, "F_ADD_SEALS" },
    { F_GET_SEALS_LINUX, "F_GET_SEALS" });

SET(trace_madvise, { 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" },
    { 3, "MADV_WILLNEED" }, { MADV_DONTNEED_LINUX, "MADV_DONTNEED" }, { MADV_FREE_LINUX, "MADV_FREE" },
    { 9, "MADV_REMOVE" }, { 10, "MADV_DONTFORK" }, { 11, "MADV_DOFORK" }, { 12, "MADV_MERGEABLE" },
    { 13, "MADV_UNMERGEABLE" }, { 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" },
    { 16, "MADV_DONTDUMP" }, { 17, "MADV_DODUMP" });

/* si_code: per signal for the positive codes, generic for the rest. */
#define SI_KERNEL_CODE 0x80
static const struct {
    int sig, code;
    const char *name;
} si_codes[] = {
    { SIGSEGV_LINUX, 1, "SEGV_MAPERR" }, { SIGSEGV_LINUX, 2, "SEGV_ACCERR" },
    { SIGSEGV_LINUX, 3, "SEGV_BNDERR" }, { SIGSEGV_LINUX, 4, "SEGV_PKUERR" },
    { SIGILL_LINUX, 1, "ILL_ILLOPC" },   { SIGILL_LINUX, 2, "ILL_ILLOPN" },
    { SIGILL_LINUX, 3, "ILL_ILLADR" },   { SIGILL_LINUX, 4, "ILL_ILLTRP" },
    { SIGILL_LINUX, 5, "ILL_PRVOPC" },   { SIGILL_LINUX, 6, "ILL_PRVREG" },
    { SIGILL_LINUX, 7, "ILL_COPROC" },   { SIGILL_LINUX, 8, "ILL_BADSTK" },
    { SIGFPE_LINUX, 1, "FPE_INTDIV" },   { SIGFPE_LINUX, 2, "FPE_INTOVF" },
    { SIGFPE_LINUX, 3, "FPE_FLTDIV" },   { SIGFPE_LINUX, 4, "FPE_FLTOVF" },
    { SIGFPE_LINUX, 5, "FPE_FLTUND" },   { SIGFPE_LINUX, 6, "FPE_FLTRES" },
    { SIGFPE_LINUX, 7, "FPE_FLTINV" },   { SIGFPE_LINUX, 8, "FPE_FLTSUB" },
    { SIGTRAP_LINUX, 1, "TRAP_BRKPT" },  { SIGTRAP_LINUX, 2, "TRAP_TRACE" },
    { SIGBUS_LINUX, 1, "BUS_ADRALN" },   { SIGBUS_LINUX, 2, "BUS_ADRERR" },
    { SIGBUS_LINUX, 3, "BUS_OBJERR" },   { 0, SI_KERNEL_CODE, "SI_KERNEL" },
    { 0, 0, "SI_USER" },                 { 0, -1, "SI_QUEUE" },
    { 0, -2, "SI_TIMER" },               { 0, -6, "SI_TKILL" },
};

const char *trace_si_code_name(int sig, int code)
{
    bool per_signal = code > 0 && code < SI_KERNEL_CODE;
    for (size_t i = 0; i < G_N_ELEMENTS(si_codes); i++)
        if (si_codes[i].code == code && si_codes[i].sig == (per_signal ? sig : 0))
            return si_codes[i].name;
    return NULL;
}

/* Calls a guest may try that seccomp-emu does not emulate: the ones the
 * 2005 personality rule lets through (restart_syscall, umask, chmod on
 * int $0x80; close, stat, setresgid on syscall), and what a job reaching
 * beyond its descriptors reaches for.  Same letters as abi.h. */
static const struct {
    const char *name, *fmt;
} fallback[] = {
    { "restart_syscall", "" }, { "umask", "o" },         { "chmod", "so" },
    { "fchmod", "do" },        { "setresgid", "ddd" },   { "setresuid", "ddd" },
    { "execve", "spp" },       { "fork", "" },           { "vfork", "" },
    { "kill", "dd" },          { "tgkill", "ddd" },      { "unlink", "s" },
    { "mkdir", "so" },         { "rmdir", "s" },         { "chdir", "s" },
    { "socket", "ddd" },       { "connect", "dpu" },     { "creat", "so" },
    { "access", "so" },        { "rt_sigaction", "dppu" }, { "rt_sigprocmask", "dppu" },
    { "alarm", "u" },          { "pause", "" },          { "ptrace", "ddpp" },
};

const char *trace_fallback_fmt(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(fallback); i++)
        if (!strcmp(fallback[i].name, name))
            return fallback[i].fmt;
    return NULL;
}

bool trace_returns_address(const char *name)
{
    static const char *const addr_calls[] = { "mmap", "mmap2", "old_mmap", "brk", "mremap" };
    for (size_t i = 0; i < G_N_ELEMENTS(addr_calls); i++)
        if (!strcmp(addr_calls[i], name))
            return true;
    return false;
}
