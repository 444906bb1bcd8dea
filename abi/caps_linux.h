/* Linux's capabilities by number and name (include/uapi/linux/capability.h),
 * and the capget/capset header versions. */
#ifndef ABI_CAPS_LINUX_H
#define ABI_CAPS_LINUX_H

#include <stdint.h>

#define CAP_LAST_CAP_LINUX 40 /* CAP_CHECKPOINT_RESTORE, Linux 5.9 */
#define CAP_IPC_LOCK_LINUX 14
#define CAP_SYS_ADMIN_LINUX 21
#define CAP_ALL_LINUX ((2ull << CAP_LAST_CAP_LINUX) - 1)

#define LINUX_CAPABILITY_VERSION_1 0x19980330u /* one 32-bit word per set */
#define LINUX_CAPABILITY_VERSION_2 0x20071026u /* two words, deprecated */
#define LINUX_CAPABILITY_VERSION_3 0x20080522u /* two words */

/* "CAP_CHOWN", ... indexed by number; NULL past CAP_LAST_CAP_LINUX. */
extern const char *const cap_names_linux[CAP_LAST_CAP_LINUX + 1];

/* The number of "CAP_NAME" (exactly as Docker and Podman spell it), or -1. */
int cap_by_name_linux(const char *name);

#endif
