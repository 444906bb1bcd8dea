/* What a container profile answers (tests/profiles): calls a container's
 * default profile refuses, each made with arguments the kernel itself
 * would refuse harmlessly had the filter let it through (a NULL pointer,
 * an invalid flag), so a native run under a wrong filter changes nothing
 * on the host; and calls every profile allows that seccomp-emu emulates.
 * Prints "name: ok" or "name: ENAME". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CLONE_SIGHAND 0x00000800
#define CLONE_NEWUSER 0x10000000
#define CLONE_NEWNS 0x00020000

static void show(const char *name, long r)
{
    const char *e = r < 0 ? strerrorname_np(errno) : NULL;
    printf("%s: %s\n", name, r < 0 ? (e ? e : "E?") : "ok");
    fflush(stdout);
}

int main(void)
{
    show("getpid", syscall(SYS_getpid));
    show("uname(NULL)", syscall(SYS_uname, NULL));
    show("mount(NULL)", syscall(SYS_mount, NULL, NULL, NULL, 0L, NULL));
    show("umount2(NULL)", syscall(SYS_umount2, NULL, 0L));
    show("sethostname(NULL, -1)", syscall(SYS_sethostname, NULL, -1L));
    show("setdomainname(NULL, -1)", syscall(SYS_setdomainname, NULL, -1L));
    show("unshare(invalid)", syscall(SYS_unshare, 0x80000000L));
    show("clone(NEWUSER|SIGHAND)", syscall(SYS_clone, (long)(CLONE_NEWUSER | CLONE_SIGHAND), 0L,
                                           0L, 0L, 0L));
    show("clone(NEWNS|SIGHAND)", syscall(SYS_clone, (long)(CLONE_NEWNS | CLONE_SIGHAND), 0L, 0L,
                                         0L, 0L));
#ifdef SYS_clone3
    show("clone3(NULL, 0)", syscall(SYS_clone3, NULL, 0L));
#endif
    show("init_module(NULL)", syscall(SYS_init_module, NULL, 0L, NULL));
    show("delete_module(NULL)", syscall(SYS_delete_module, NULL, 0L));
    show("kexec_load(invalid)", syscall(SYS_kexec_load, 0L, 0L, NULL, 0xffffffffL));
    show("bpf(-1)", syscall(SYS_bpf, -1L, NULL, 0L));
    show("perf_event_open(NULL)", syscall(SYS_perf_event_open, NULL, 0L, -1L, -1L, 0L));
    show("syslog(-1)", syscall(SYS_syslog, -1L, NULL, 0L));
    show("add_key(NULL)", syscall(SYS_add_key, NULL, NULL, NULL, 0L, 0L));
    show("keyctl(-1)", syscall(SYS_keyctl, -1L, 0L, 0L, 0L, 0L));
    show("userfaultfd(-1)", syscall(SYS_userfaultfd, -1L));
    show("personality(1)", syscall(SYS_personality, 1L));
    show("socket(AF_VSOCK, -1)", syscall(
#ifdef SYS_socket
        SYS_socket, 40L, -1L, 0L
#else
        SYS_socketcall, 1L, (long[]){ 40, -1, 0 }
#endif
        ));
    show("quotactl(-1)", syscall(SYS_quotactl, -1L, NULL, 0L, NULL));
    show("pivot_root(NULL)", syscall(SYS_pivot_root, NULL, NULL));
    show("open_by_handle_at(-1)", syscall(SYS_open_by_handle_at, -1L, NULL, 0L));
    show("settimeofday(NULL, invalid)", syscall(SYS_settimeofday, NULL, (void *)1L));
    show("swapon(NULL)", syscall(SYS_swapon, NULL, 0L));
    show("iopl(9)", syscall(SYS_iopl, 9L));
    return 0;
}
