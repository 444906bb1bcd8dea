/* The few files a guest may open, all emulated and read-only in what they
 * reveal: its own /proc/self/status (seccomp mode, filter count,
 * no_new_privs, signal masks), /proc/self/maps (its own mappings:
 * glibc's pthread_getattr_np finds the main thread's stack there), and
 * /proc/<pid>/stat and /proc/<pid>/syscall of its tasks (the state letter
 * and the call a task is blocked in: what supervisors and the kernel's
 * seccomp selftests poll for), the devices /dev/null, /dev/zero and
 * /dev/urandom, and the emulated machine's transparent huge page size,
 * which the Go runtime reads before main.  Nothing of the host's file
 * system is opened. */
#ifndef EMU_KERNEL_VFILE_H
#define EMU_KERNEL_VFILE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/kernel/fdtable.h"

struct task;
struct kstat;

enum vfile_id { VFILE_NULL, VFILE_ZERO, VFILE_URANDOM, VFILE_PROC_STATUS, VFILE_THP_PMD_SIZE,
                VFILE_PROC_MAPS, VFILE_PROC_STAT, VFILE_PROC_TASK_STAT, VFILE_PROC_SYSCALL };

/* Is it one of the files of a /proc/<pid> directory? */
bool vfile_is_proc(int id);

/* Where the kernel's THP page size is read (VFILE_THP_PMD_SIZE). */
#define THP_PMD_SIZE_PATH "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

/* The places the emulated files have in the guest's namespace, which
 * emu/kernel/vfs.c draws as a tree: place i (< vfile_place_count()) is
 * the file *id at the path returned, written into buf when it names the
 * guest's process id (/proc/<pid>/status). */
size_t vfile_place_count(void);
const char *vfile_place(size_t i, char *buf, size_t len, enum vfile_id *id);

/* The emulated file at `path` for task t, or -1; for a /proc file, *tid
 * gets the task it is about. */
int vfile_lookup(struct task *t, const char *path, int32_t *tid);
/* The task /proc/<spec>/<leaf> names for t (spec: self, thread-self, a
 * tid, or any of these followed by task/<tid>), or NULL. */
struct task *vfile_proc_task(struct task *t, const char *path, const char *leaf);
/* /proc/<spec>/fd/<n>: what readlink shows for the descriptor, into
 * out (its length), -ENOENT for a descriptor that is not open, or 0 when
 * `path` is not such a link. */
int64_t vfile_fd_link(struct task *t, const char *path, char *out, size_t size);
/* Whether `path` is one of those /proc directories, or its task/. */
bool vfile_proc_dir(struct task *t, const char *path);
/* The entries of /proc/<spec>/task for t, one per thread of that process
 * (tids as names, in its thread order: the leader first, a zombie leader
 * too, as proc_task_readdir() walks them), or NULL if `path` is no such
 * directory. */
GPtrArray *vfile_proc_task_entries(struct task *t, const char *path);
/* Open it with Linux open flags: a guest descriptor or a negative errno. */
int64_t vfile_open(struct task *t, int id, int32_t tid, int flags);
/* Fill the guest's buffer at buf with zeros or, `random`, the host's
 * randomness, piece by piece: bytes done, or -EFAULT (-EIO if the host has
 * no randomness to give).  /dev/zero, /dev/urandom and getrandom(2). */
int64_t vfile_fill(struct task *t, uint64_t buf, uint64_t count, bool random);
/* read(2) (offset -1: at the file position, which moves) or pread(2). */
int64_t vfile_read(struct task *t, struct gfd *g, uint64_t buf, uint64_t count, int64_t offset);
int64_t vfile_write(struct task *t, struct gfd *g, uint64_t buf, uint64_t count);
/* What fstat shows: type, mode and device numbers. */
void vfile_stat(const struct gfd *g, uint32_t *mode, uint64_t *rdev_major,
                uint64_t *rdev_minor);


#endif
