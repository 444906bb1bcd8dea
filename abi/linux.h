/* Guest-side Linux constants.  Every name carries _LINUX so that it can
 * never collide with (or silently take the value of) the host's headers:
 * the host may be macOS or a BSD, where EAGAIN, SIGBUS or O_CREAT differ. */
#ifndef ABI_LINUX_H
#define ABI_LINUX_H

#include "abi/seccomp_linux.h"

/* errno values (asm-generic/errno-base.h, errno.h) */
#define EPERM_LINUX 1
#define E2BIG_LINUX 7
#define ENOENT_LINUX 2
#define ESRCH_LINUX 3
#define EINTR_LINUX 4
#define EIO_LINUX 5
#define EBADF_LINUX 9
#define EAGAIN_LINUX 11
#define ENOMEM_LINUX 12
#define EACCES_LINUX 13
#define EFAULT_LINUX 14
#define EBUSY_LINUX 16
#define EEXIST_LINUX 17
#define ENODEV_LINUX 19
#define ENOTDIR_LINUX 20
#define EINVAL_LINUX 22
#define ENFILE_LINUX 23
#define EMFILE_LINUX 24
#define ENOTTY_LINUX 25
#define EFBIG_LINUX 27
#define ENOSPC_LINUX 28
#define ESPIPE_LINUX 29
#define EPIPE_LINUX 32
#define ERANGE_LINUX 34
#define ENAMETOOLONG_LINUX 36
#define ENOSYS_LINUX 38
#define ELOOP_LINUX 40
#define EOPNOTSUPP_LINUX 95
#define ECONNRESET_LINUX 104
#define ENOTCONN_LINUX 107
#define EISCONN_LINUX 106
#define ENOTSOCK_LINUX 88
#define EPROTONOSUPPORT_LINUX 93
#define ESOCKTNOSUPPORT_LINUX 94
#define EAFNOSUPPORT_LINUX 97
#define ETIMEDOUT_LINUX 110
#define ENXIO_LINUX 6
#define EISDIR_LINUX 21
#define EOVERFLOW_LINUX 75
#define EDESTADDRREQ_LINUX 89
#define EMSGSIZE_LINUX 90
#define ENETDOWN_LINUX 100
#define ENETUNREACH_LINUX 101
#define ECONNABORTED_LINUX 103
#define ENOBUFS_LINUX 105
#define ESHUTDOWN_LINUX 108
#define ECONNREFUSED_LINUX 111
#define EHOSTUNREACH_LINUX 113
#define EINPROGRESS_LINUX 115
#define EDQUOT_LINUX 122
#define EROFS_LINUX 30
#define ELOOP_LINUX 40

/* signals (asm/signal.h, x86) */
#define SIGHUP_LINUX 1
#define SIGINT_LINUX 2
#define SIGQUIT_LINUX 3
#define SIGILL_LINUX 4
#define SIGTRAP_LINUX 5
#define SIGABRT_LINUX 6
#define SIGBUS_LINUX 7
#define SIGFPE_LINUX 8
#define SIGKILL_LINUX 9
#define SIGUSR1_LINUX 10
#define SIGSEGV_LINUX 11
#define SIGUSR2_LINUX 12
#define SIGPIPE_LINUX 13
#define SIGALRM_LINUX 14
#define SIGTERM_LINUX 15
#define SIGSYS_LINUX 31
#define NSIG_LINUX 64

/* prctl(2) and seccomp(2) */
#define PR_GET_SECCOMP_LINUX 21
#define PR_SET_SECCOMP_LINUX 22
#define PR_SET_NAME_LINUX 15
#define PR_GET_NAME_LINUX 16
#define PR_CAPBSET_READ_LINUX 23
#define TASK_COMM_LEN_LINUX 16
/* modes, operations and filters: abi/seccomp_linux.h */
#define NR_SECCOMP_MODES_LINUX 1 /* the seed patch knew only strict mode */

/* auxiliary vector (linux/auxvec.h, asm/auxvec.h) */
#define AT_NULL_LINUX 0
#define AT_PHDR_LINUX 3
#define AT_PHENT_LINUX 4
#define AT_PHNUM_LINUX 5
#define AT_PAGESZ_LINUX 6
#define AT_BASE_LINUX 7
#define AT_FLAGS_LINUX 8
#define AT_ENTRY_LINUX 9
#define AT_UID_LINUX 11
#define AT_EUID_LINUX 12
#define AT_GID_LINUX 13
#define AT_EGID_LINUX 14
#define AT_PLATFORM_LINUX 15
#define AT_HWCAP_LINUX 16
#define AT_CLKTCK_LINUX 17
#define AT_SECURE_LINUX 23
#define AT_RANDOM_LINUX 25
#define AT_HWCAP2_LINUX 26
#define AT_RSEQ_FEATURE_SIZE_LINUX 27
#define AT_RSEQ_ALIGN_LINUX 28
/* struct rseq's size in the first ABI, how much of it this kernel fills
 * (offsetof(struct rseq, end): AT_RSEQ_FEATURE_SIZE) and its alignment
 * (AT_RSEQ_ALIGN). */
#define RSEQ_ORIG_SIZE_LINUX 32u
#define RSEQ_FEATURE_SIZE_LINUX 28u
#define RSEQ_ALIGN_LINUX 32u
#define AT_EXECFN_LINUX 31
#define AT_SYSINFO_LINUX 32
#define AT_SYSINFO_EHDR_LINUX 33
#define AT_MINSIGSTKSZ_LINUX 51

/* mmap(2) */
#define PROT_READ_LINUX 0x1
#define PROT_WRITE_LINUX 0x2
#define PROT_EXEC_LINUX 0x4
#define PROT_SEM_LINUX 0x8
#define PROT_GROWSDOWN_LINUX 0x01000000
#define PROT_GROWSUP_LINUX 0x02000000
#define MAP_SHARED_LINUX 0x01
#define MAP_PRIVATE_LINUX 0x02
#define MAP_TYPE_LINUX 0x0f
#define MAP_FIXED_LINUX 0x10
#define MAP_ANONYMOUS_LINUX 0x20
#define MAP_32BIT_LINUX 0x40
#define MAP_GROWSDOWN_LINUX 0x0100
#define MAP_DENYWRITE_LINUX 0x0800
#define MAP_EXECUTABLE_LINUX 0x1000
#define MAP_LOCKED_LINUX 0x2000
/* mlock2() and mlockall() */
#define MLOCK_ONFAULT_LINUX 0x01
#define MCL_CURRENT_LINUX 1
#define MCL_FUTURE_LINUX 2
#define MCL_ONFAULT_LINUX 4
#define MAP_NORESERVE_LINUX 0x4000
#define MAP_POPULATE_LINUX 0x8000
#define MAP_NONBLOCK_LINUX 0x10000
#define MAP_STACK_LINUX 0x20000
#define MAP_HUGETLB_LINUX 0x40000
/* mmap's log2 of a huge page size, in bits 26-31 of its flags */
#define MAP_HUGE_SHIFT_LINUX 26
#define MAP_HUGE_MASK_LINUX 0x3f
#define MAP_FIXED_NOREPLACE_LINUX 0x100000
#define MREMAP_MAYMOVE_LINUX 1
#define MREMAP_FIXED_LINUX 2
#define MREMAP_DONTUNMAP_LINUX 4
#define MAP_SHARED_VALIDATE_LINUX 0x03
#define MAP_DROPPABLE_LINUX 0x08
#define MADV_NORMAL_LINUX 0
#define MADV_RANDOM_LINUX 1
#define MADV_SEQUENTIAL_LINUX 2
#define MADV_WILLNEED_LINUX 3
#define MADV_DONTNEED_LINUX 4
#define MADV_FREE_LINUX 8
#define MADV_REMOVE_LINUX 9
#define MADV_DONTFORK_LINUX 10
#define MADV_DOFORK_LINUX 11
#define MADV_MERGEABLE_LINUX 12
#define MADV_UNMERGEABLE_LINUX 13
#define MADV_HUGEPAGE_LINUX 14
#define MADV_NOHUGEPAGE_LINUX 15
#define MADV_DONTDUMP_LINUX 16
#define MADV_DODUMP_LINUX 17
#define MADV_WIPEONFORK_LINUX 18
#define MADV_KEEPONFORK_LINUX 19
#define MADV_COLD_LINUX 20
#define MADV_PAGEOUT_LINUX 21
#define MADV_POPULATE_READ_LINUX 22
#define MADV_POPULATE_WRITE_LINUX 23
#define MADV_DONTNEED_LOCKED_LINUX 24
#define MADV_COLLAPSE_LINUX 25
#define MADV_HWPOISON_LINUX 100
#define MADV_SOFT_OFFLINE_LINUX 101
#define MADV_GUARD_INSTALL_LINUX 102
#define MADV_GUARD_REMOVE_LINUX 103
#define STACK_GUARD_GAP_LINUX (256 * PAGE_SIZE_LINUX) /* stack_guard_gap */

/* arch_prctl(2) */
#define ARCH_SET_GS_LINUX 0x1001
#define ARCH_SET_FS_LINUX 0x1002
#define ARCH_GET_FS_LINUX 0x1003
#define ARCH_GET_GS_LINUX 0x1004

/* scheduling policies (uapi/linux/sched.h) */
#define SCHED_NORMAL_LINUX 0

/* resource limits */
#define RLIMIT_CPU_LINUX 0
#define RLIMIT_FSIZE_LINUX 1
#define RLIMIT_DATA_LINUX 2
#define RLIMIT_STACK_LINUX 3
#define RLIMIT_CORE_LINUX 4
#define RLIMIT_RSS_LINUX 5
#define RLIMIT_NPROC_LINUX 6
#define RLIMIT_NOFILE_LINUX 7
#define RLIMIT_MEMLOCK_LINUX 8
#define RLIMIT_AS_LINUX 9
#define RLIMIT_LOCKS_LINUX 10
#define RLIMIT_SIGPENDING_LINUX 11
#define RLIMIT_MSGQUEUE_LINUX 12
#define RLIMIT_NICE_LINUX 13
#define RLIMIT_RTPRIO_LINUX 14
#define RLIMIT_RTTIME_LINUX 15
#define RLIM_NLIMITS_LINUX 16
#define RLIM_INFINITY_LINUX UINT64_MAX
/* The clock tick of times(2) and /proc (USER_HZ). */
#define USER_HZ_LINUX 100

/* clocks */
#define CLOCK_REALTIME_LINUX 0
#define CLOCK_MONOTONIC_LINUX 1
#define CLOCK_PROCESS_CPUTIME_ID_LINUX 2
#define CLOCK_THREAD_CPUTIME_ID_LINUX 3
#define CLOCK_MONOTONIC_RAW_LINUX 4
#define CLOCK_REALTIME_COARSE_LINUX 5
#define CLOCK_MONOTONIC_COARSE_LINUX 6
#define CLOCK_BOOTTIME_LINUX 7
#define CLOCK_REALTIME_ALARM_LINUX 8
#define CLOCK_BOOTTIME_ALARM_LINUX 9
#define CLOCK_TAI_LINUX 11
/* A clockid below zero names a CPU clock of a process or thread:
 * (~pid << 3) | (thread ? 4 : 0) | which, or a clock device's (which 3). */
#define CPUCLOCK_PERTHREAD_MASK_LINUX 4
#define CPUCLOCK_WHICH_MASK_LINUX 3
#define CPUCLOCK_MAX_LINUX 3
#define CLOCKFD_LINUX 3
#define TIMER_ABSTIME_LINUX 1

/* struct sigevent's sigev_notify (timer_create) */
#define SIGEV_SIGNAL_LINUX 0
#define SIGEV_NONE_LINUX 1
#define SIGEV_THREAD_LINUX 2
#define SIGEV_THREAD_ID_LINUX 4

/* files */
#define AT_FDCWD_LINUX (-100)
#define AT_EMPTY_PATH_LINUX 0x1000
#define AT_SYMLINK_NOFOLLOW_LINUX 0x100
#define O_ACCMODE_LINUX 03
#define O_RDONLY_LINUX 00
#define O_WRONLY_LINUX 01
#define O_RDWR_LINUX 02
#define O_CREAT_LINUX 0100
#define O_CLOEXEC_LINUX 02000000
#define O_EXCL_LINUX 0200
#define O_NOCTTY_LINUX 0400
#define O_TRUNC_LINUX 01000
#define O_APPEND_LINUX 02000
#define O_NONBLOCK_LINUX 04000
#define O_DSYNC_LINUX 010000
#define O_FASYNC_LINUX 020000
#define O_DIRECT_LINUX 040000
#define O_LARGEFILE_LINUX 0100000
#define O_DIRECTORY_LINUX 0200000
#define O_NOFOLLOW_LINUX 0400000
#define O_NOATIME_LINUX 01000000
#define O_PATH_LINUX 010000000
#define O_TMPFILE_LINUX 020200000 /* with O_DIRECTORY */
#define AT_REMOVEDIR_LINUX 0x200
#define AT_EACCESS_LINUX 0x200
#define AT_NO_AUTOMOUNT_LINUX 0x800
#define AT_STATX_SYNC_TYPE_LINUX 0x6000
#define R_OK_LINUX 4
#define W_OK_LINUX 2
#define X_OK_LINUX 1
#define NAME_MAX_LINUX 255
#define PATH_MAX_LINUX 4096
#define MAXSYMLINKS_LINUX 40
#define DT_UNKNOWN_LINUX 0
#define DT_FIFO_LINUX 1
#define DT_CHR_LINUX 2
#define DT_DIR_LINUX 4
#define DT_BLK_LINUX 6
#define DT_REG_LINUX 8
#define DT_LNK_LINUX 10
#define DT_SOCK_LINUX 12
#define SEEK_SET_LINUX 0
#define SEEK_CUR_LINUX 1
#define SEEK_END_LINUX 2
#define SEEK_DATA_LINUX 3
#define SEEK_HOLE_LINUX 4
#define SEEK_MAX_LINUX SEEK_HOLE_LINUX
#define S_IFMT_LINUX 0170000
#define S_IFSOCK_LINUX 0140000
#define S_IFREG_LINUX 0100000
#define S_IFBLK_LINUX 0060000
#define S_IFDIR_LINUX 0040000
#define S_IFCHR_LINUX 0020000
#define S_IFIFO_LINUX 0010000
#define S_IFLNK_LINUX 0120000
#define TCGETS_LINUX 0x5401
#define TIOCGWINSZ_LINUX 0x5413
#define FIONCLEX_LINUX 0x5450
#define FIOCLEX_LINUX 0x5451
#define TIOCGPGRP_LINUX 0x540f
#define FIONREAD_LINUX 0x541b
#define F_GETFD_LINUX 1
#define F_SETFD_LINUX 2
#define F_GETFL_LINUX 3
#define F_SETFL_LINUX 4
#define F_DUPFD_LINUX 0
#define F_DUPFD_CLOEXEC_LINUX 1030
/* File seals (memfd_create): F_ADD_SEALS adds, F_GET_SEALS reads. */
#define F_ADD_SEALS_LINUX 1033
#define F_GET_SEALS_LINUX 1034
#define F_SEAL_SEAL_LINUX 0x0001u
#define F_SEAL_SHRINK_LINUX 0x0002u
#define F_SEAL_GROW_LINUX 0x0004u
#define F_SEAL_WRITE_LINUX 0x0008u
#define F_SEAL_FUTURE_WRITE_LINUX 0x0010u
#define F_SEAL_EXEC_LINUX 0x0020u
#define F_ALL_SEALS_LINUX 0x003fu
/* memfd_create(2)'s flags; a HUGETLB page size sits in bits 26-31. */
#define MFD_CLOEXEC_LINUX 0x0001u
#define MFD_ALLOW_SEALING_LINUX 0x0002u
#define MFD_HUGETLB_LINUX 0x0004u
#define MFD_NOEXEC_SEAL_LINUX 0x0008u
#define MFD_EXEC_LINUX 0x0010u
#define MFD_ALL_FLAGS_LINUX 0x001fu
#define MFD_HUGE_MASK_LINUX (0x3fu << 26)
#define MFD_NAME_MAX_LEN_LINUX 249 /* NAME_MAX less "memfd:" */
/* kcmp(2)'s types. */
#define KCMP_FILE_LINUX 0
#define KCMP_VM_LINUX 1
#define KCMP_FILES_LINUX 2
#define KCMP_FS_LINUX 3
#define KCMP_SIGHAND_LINUX 4
#define KCMP_IO_LINUX 5
#define KCMP_SYSVSEM_LINUX 6
#define KCMP_EPOLL_TFD_LINUX 7
#define KCMP_TYPES_LINUX 8
#define STATX_BASIC_STATS_LINUX 0x7ffu

/* Linux's limits on a single read or write (fs/read_write.c) */
#define MAX_RW_COUNT_LINUX 0x7ffff000u
#define PAGE_SIZE_LINUX 4096ull
#define HPAGE_PMD_SIZE_LINUX (2ull << 20) /* x86-64: one PMD entry maps 2 MiB */
/* Round up to the guest's page size (which the host's need not be). */
#define PAGE_ALIGN_LINUX(x) (((x) + PAGE_SIZE_LINUX - 1) & ~(PAGE_SIZE_LINUX - 1))
#define UIO_MAXIOV_LINUX 1024

/* The end of user space for each ABI as a 64-bit kernel draws it. */
/* The x32 ABI's mark on a syscall number (__X32_SYSCALL_BIT). */
#define X32_SYSCALL_BIT_LINUX 0x40000000

#define TASK_SIZE_64_LINUX 0x00007ffffffff000ull
#define TASK_SIZE_IA32_LINUX 0xffffe000ull
/* ... which is also where the stack starts (STACK_TOP). */
#define TASK_SIZE_LINUX(is64) ((is64) ? TASK_SIZE_64_LINUX : TASK_SIZE_IA32_LINUX)

/* GDT selectors, laid out as arch/x86/include/asm/segment.h does for a
 * 64-bit kernel; sysexit derives the user selectors from SYSENTER_CS, so
 * the order matters and is Linux's. */
#define GDT_ENTRY_KERNEL32_CS_LINUX 1
#define GDT_ENTRY_KERNEL_CS_LINUX 2
#define GDT_ENTRY_KERNEL_DS_LINUX 3
#define GDT_ENTRY_USER32_CS_LINUX 4
#define GDT_ENTRY_USER_DS_LINUX 5
#define GDT_ENTRY_USER_CS_LINUX 6
#define GDT_ENTRY_TLS_MIN_LINUX 12
#define GDT_ENTRY_TLS_ENTRIES_LINUX 3
#define LDT_ENTRIES_LINUX 8192 /* modify_ldt's table: 64 KiB at most */
#define GDT_ENTRY_CPUNODE_LINUX 15 /* vgetcpu's: (node << 12 | cpu) in the limit */
#define GDT_ENTRIES_LINUX 16
#define SEL_KERNEL_CS_LINUX (GDT_ENTRY_KERNEL_CS_LINUX * 8)
#define SEL_KERNEL_DS_LINUX (GDT_ENTRY_KERNEL_DS_LINUX * 8)
#define SEL_USER32_CS_LINUX (GDT_ENTRY_USER32_CS_LINUX * 8 + 3)
#define SEL_USER_DS_LINUX (GDT_ENTRY_USER_DS_LINUX * 8 + 3)
#define SEL_USER_CS_LINUX (GDT_ENTRY_USER_CS_LINUX * 8 + 3)

#endif
