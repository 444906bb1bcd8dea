/* Pre-strict calls that would reach the host if they were passed through:
 * files, processes, signals to others, ptrace, mount, sockets.  Each action
 * makes one attempt, prints "ACTION -> RESULT", optionally waits for stdin
 * to close (so the runner can inspect the host while it is alive) and
 * exits 0.  Natively the attempts succeed and the runner sees their effect
 * (which proves its watchers work); under seccomp-emu they must answer as
 * documented (-ENOENT for paths, -ENOSYS for the rest) with no effect. */
#include "hguest.h"

#define NR_openat_LINUX NR(257, 295)
#define NR_creat_LINUX NR(85, 8)
#define NR_mkdir_LINUX NR(83, 39)
#define NR_rmdir_LINUX NR(84, 40)
#define NR_unlink_LINUX NR(87, 10)
#define NR_rename_LINUX NR(82, 38)
#define NR_link_LINUX NR(86, 9)
#define NR_symlink_LINUX NR(88, 83)
#define NR_chmod_LINUX NR(90, 15)
#define NR_truncate_LINUX NR(76, 92)
#define NR_mknod_LINUX NR(133, 14)
#define NR_execve_LINUX NR(59, 11)
#define NR_fork_LINUX NR(57, 2)
#define NR_vfork_LINUX NR(58, 190)
#define NR_clone_LINUX NR(56, 120)
#define NR_clone3_LINUX 435
#define NR_kill_LINUX NR(62, 37)
#define NR_tkill_LINUX NR(200, 238)
#define NR_tgkill_LINUX NR(234, 270)
#define NR_ptrace_LINUX NR(101, 26)
#define NR_mount_LINUX NR(165, 21)
#define NR_socket_LINUX NR(41, 359)
#define NR_connect_LINUX NR(42, 362)
#define NR_bind_LINUX NR(49, 361)
#define NR_socketcall_LINUX 102 /* i386 only */
#define NR_process_vm_writev_LINUX NR(311, 348)
#define NR_io_uring_setup_LINUX 425
#define NR_memfd_create_LINUX NR(319, 356)
#define NR_pipe_LINUX NR(22, 42)
#define NR_unshare_LINUX NR(272, 310)
#define NR_pidfd_open_LINUX 434
#define NR_userfaultfd_LINUX NR(323, 374)
#define NR_perf_event_open_LINUX NR(298, 336)
#define NR_bpf_LINUX NR(321, 357)
#define NR_reboot_LINUX NR(169, 88)

#define O_WRONLY_LINUX 1
#define O_CREAT_LINUX 0x40
#define AT_FDCWD_LINUX (-100)
#define SIGCHLD_LINUX 17
#define SIGKILL_LINUX 9
#define PTRACE_ATTACH_LINUX 16
#define AF_UNIX_LINUX 1
#define AF_INET_LINUX 2
#define SOCK_STREAM_LINUX 1
#define S_IFIFO_LINUX 0010000

static char pathbuf[3][512];

/* DIR + "/" + name into one of three buffers. */
static char *in_dir(int slot, const char *dir, const char *name)
{
    char *p = pathbuf[slot];
    ulong n = 0;
    for (const char *s = dir; *s && n < 400; s++)
        p[n++] = *s;
    p[n++] = '/';
    for (const char *s = name; *s && n < 510; s++)
        p[n++] = *s;
    p[n] = 0;
    return p;
}

/* fork, vfork, clone(SIGCHLD) or clone3: the child creates PATH and exits
 * at once, all in registers, because a vfork child shares the parent's stack. */
static long spawn_creating(long nr, long a1, long a2, const char *path)
{
    long r;
#if defined(__x86_64__)
    __asm__ volatile("mov %[p], %%r9\n xor %%edx, %%edx\n xor %%r10d, %%r10d\n xor %%r8d, %%r8d\n"
                     " syscall\n test %%rax, %%rax\n jnz 1f\n"
                     " mov $2, %%eax\n mov %%r9, %%rdi\n mov $0x41, %%esi\n mov $0600, %%edx\n"
                     " syscall\n mov $60, %%eax\n xor %%edi, %%edi\n syscall\n hlt\n"
                     "1:\n"
                     : "=a"(r)
                     : "a"(nr), "D"(a1), "S"(a2), [p] "r"(path)
                     : "rdx", "r10", "r8", "r9", "rcx", "r11", "memory");
#else
    __asm__ volatile("xor %%edx, %%edx\n xor %%esi, %%esi\n"
                     " int $0x80\n test %%eax, %%eax\n jnz 1f\n"
                     " mov $5, %%eax\n mov %%edi, %%ebx\n mov $0x41, %%ecx\n mov $0600, %%edx\n"
                     " int $0x80\n mov $1, %%eax\n xor %%ebx, %%ebx\n int $0x80\n hlt\n"
                     "1:\n"
                     : "=a"(r), "+b"(a1), "+c"(a2)
                     : "a"(nr), "D"(path)
                     : "edx", "esi", "memory");
#endif
    return r;
}

struct sockaddr_in_linux {
    unsigned short family;
    unsigned short port; /* network order */
    unsigned int addr;
    char zero[8];
};

struct sockaddr_un_linux {
    unsigned short family;
    char path[108];
};

static long tcp_connect(long port, int via_socketcall)
{
    struct sockaddr_in_linux sa = { AF_INET_LINUX,
                                    (unsigned short)(((port & 0xff) << 8) | ((port >> 8) & 0xff)),
                                    0x0100007f, { 0 } };
    long fd;
    if (via_socketcall) {
        long a[3] = { AF_INET_LINUX, SOCK_STREAM_LINUX, 0 };
        fd = SYS2(NR_socketcall_LINUX, 1 /* SYS_SOCKET */, a);
        if (fd < 0)
            return fd;
        long c[3] = { fd, (long)&sa, sizeof(sa) };
        return SYS2(NR_socketcall_LINUX, 3 /* SYS_CONNECT */, c);
    }
    fd = SYS3(NR_socket_LINUX, AF_INET_LINUX, SOCK_STREAM_LINUX, 0);
    if (fd < 0)
        return fd;
    return SYS3(NR_connect_LINUX, fd, &sa, sizeof(sa));
}

static long unix_sock(const char *path, int bind)
{
    struct sockaddr_un_linux sa = { AF_UNIX_LINUX, { 0 } };
    for (ulong i = 0; path[i] && i < sizeof(sa.path) - 1; i++)
        sa.path[i] = path[i];
    long fd = SYS3(NR_socket_LINUX, AF_UNIX_LINUX, SOCK_STREAM_LINUX, 0);
    if (fd < 0)
        return fd;
    return SYS3(bind ? NR_bind_LINUX : NR_connect_LINUX, fd, &sa, sizeof(sa));
}

static long act(const char *a, const char *arg)
{
    if (h_streq(a, "open_creat"))
        return SYS3(NR_open_LINUX, in_dir(0, arg, "opened"), O_WRONLY_LINUX | O_CREAT_LINUX, 0600);
    if (h_streq(a, "openat_creat"))
        return SYS4(NR_openat_LINUX, AT_FDCWD_LINUX, in_dir(0, arg, "openedat"),
                    O_WRONLY_LINUX | O_CREAT_LINUX, 0600);
    if (h_streq(a, "creat"))
        return SYS2(NR_creat_LINUX, in_dir(0, arg, "created"), 0600);
    if (h_streq(a, "mkdir"))
        return SYS2(NR_mkdir_LINUX, in_dir(0, arg, "newdir"), 0700);
    if (h_streq(a, "rmdir"))
        return SYS1(NR_rmdir_LINUX, in_dir(0, arg, "subdir"));
    if (h_streq(a, "unlink"))
        return SYS1(NR_unlink_LINUX, in_dir(0, arg, "keep"));
    if (h_streq(a, "rename"))
        return SYS2(NR_rename_LINUX, in_dir(0, arg, "keep"), in_dir(1, arg, "moved"));
    if (h_streq(a, "link"))
        return SYS2(NR_link_LINUX, in_dir(0, arg, "keep"), in_dir(1, arg, "hardlink"));
    if (h_streq(a, "symlink"))
        return SYS2(NR_symlink_LINUX, "/etc/passwd", in_dir(0, arg, "symlink"));
    if (h_streq(a, "chmod"))
        return SYS2(NR_chmod_LINUX, in_dir(0, arg, "keep"), 0);
    if (h_streq(a, "truncate"))
        return SYS2(NR_truncate_LINUX, in_dir(0, arg, "keep"), 0);
    if (h_streq(a, "mknod"))
        return SYS3(NR_mknod_LINUX, in_dir(0, arg, "fifo"), S_IFIFO_LINUX | 0600, 0);
    if (h_streq(a, "bind_unix"))
        return unix_sock(in_dir(0, arg, "sock"), 1);
    if (h_streq(a, "execve")) {
        char *cmd = in_dir(0, "echo x >", arg);
        char *script = in_dir(1, cmd, "executed");
        script[8] = ' '; /* "echo x > DIR/executed" */
        const char *argv[] = { "sh", "-c", script, 0 };
        const char *envp[] = { 0 };
        return SYS3(NR_execve_LINUX, "/bin/sh", argv, envp);
    }
    if (h_streq(a, "fork"))
        return spawn_creating(NR_fork_LINUX, 0, 0, in_dir(0, arg, "forked"));
    if (h_streq(a, "vfork"))
        return spawn_creating(NR_vfork_LINUX, 0, 0, in_dir(0, arg, "vforked"));
    if (h_streq(a, "clone"))
        return spawn_creating(NR_clone_LINUX, SIGCHLD_LINUX, 0, in_dir(0, arg, "cloned"));
    if (h_streq(a, "clone3")) {
        /* struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, ... */
        static unsigned long long ca[8];
        ca[4] = SIGCHLD_LINUX;
        return spawn_creating(NR_clone3_LINUX, (long)ca, 64 /* CLONE_ARGS_SIZE_VER0 */, in_dir(0, arg, "cloned3"));
    }
    if (h_streq(a, "kill"))
        return SYS2(NR_kill_LINUX, h_atol(arg), SIGKILL_LINUX);
    if (h_streq(a, "kill_group"))
        return SYS2(NR_kill_LINUX, -h_atol(arg), SIGKILL_LINUX);
    if (h_streq(a, "tkill"))
        return SYS2(NR_tkill_LINUX, h_atol(arg), SIGKILL_LINUX);
    if (h_streq(a, "tgkill"))
        return SYS3(NR_tgkill_LINUX, h_atol(arg), h_atol(arg), SIGKILL_LINUX);
    if (h_streq(a, "ptrace"))
        return SYS4(NR_ptrace_LINUX, PTRACE_ATTACH_LINUX, h_atol(arg), 0, 0);
    if (h_streq(a, "mount"))
        return SYS5(NR_mount_LINUX, "none", in_dir(0, arg, "mnt"), "tmpfs", 0, 0);
    if (h_streq(a, "tcp"))
        return tcp_connect(h_atol(arg), 0);
#if !defined(__x86_64__)
    if (h_streq(a, "tcp_socketcall"))
        return tcp_connect(h_atol(arg), 1);
#endif
    if (h_streq(a, "unix"))
        return unix_sock(arg, 0);
    /* No native leg for these (their effect is not watched, or running
     * them natively is pointless); the emulated answer is still checked. */
    if (h_streq(a, "process_vm_writev"))
        return SYS6(NR_process_vm_writev_LINUX, h_atol(arg), 0, 0, 0, 0, 0);
    if (h_streq(a, "io_uring_setup")) {
        static char params[120];
        return SYS2(NR_io_uring_setup_LINUX, 8, params);
    }
    if (h_streq(a, "memfd_create"))
        return SYS2(NR_memfd_create_LINUX, "x", 0);
    if (h_streq(a, "pipe")) {
        static int fds[2];
        return SYS1(NR_pipe_LINUX, fds);
    }
    if (h_streq(a, "unshare"))
        return SYS1(NR_unshare_LINUX, 0x00020000 /* CLONE_NEWNS */);
    if (h_streq(a, "pidfd_open"))
        return SYS2(NR_pidfd_open_LINUX, h_atol(arg), 0);
    if (h_streq(a, "userfaultfd"))
        return SYS1(NR_userfaultfd_LINUX, 0);
    if (h_streq(a, "perf_event_open"))
        return SYS5(NR_perf_event_open_LINUX, 0, 0, -1, -1, 0);
    if (h_streq(a, "bpf"))
        return SYS3(NR_bpf_LINUX, 0, 0, 0);
    if (h_streq(a, "reboot")) /* wrong magic: even natively only -EINVAL */
        return SYS4(NR_reboot_LINUX, 0, 0, 0, 0);
    out("unknown action ");
    out(a);
    out("\n");
    h_exit(2);
}

/* hostcalls ACTION ARG [hold] */
int guest_main(int argc, char **argv)
{
    if (argc < 3) {
        out("usage: hostcalls ACTION ARG [hold]\n");
        return 2;
    }
    report(argv[1], act(argv[1], argv[2]));
    if (argc > 3 && h_streq(argv[3], "hold"))
        hold();
    return 0;
}
