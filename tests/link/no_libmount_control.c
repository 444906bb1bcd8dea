/* Reads the mount table through GIO, as seccomp-emu never does: linked
 * with build-aux/no-libmount.sh's stubs, as seccomp-emu is, it must end
 * in the stub's abort and name the libmount function GIO reached.  If it
 * lists mounts instead, the stubs are not what the link resolved to. */
#include <gio/gunixmounts.h>
#include <stdio.h>

int main(void)
{
    GList *mounts = g_unix_mount_points_get(NULL);
    printf("no_libmount_control: %u mount points read: libmount is linked\n",
           g_list_length(mounts));
    g_list_free_full(mounts, (GDestroyNotify)g_unix_mount_point_free);
    return 0;
}
