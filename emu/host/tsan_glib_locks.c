/* ThreadSanitizer builds only (-Db_sanitize=thread).  On Linux, glib's
 * GMutex and GCond are glib's own futex code, which ThreadSanitizer cannot
 * see into: every piece of state the scheduler's lock guards would be
 * reported as raced.  The link wraps the calls seccomp-emu makes
 * (-Wl,--wrap, emu/host/meson.build) and tells ThreadSanitizer what each
 * does to the mutex: taking it acquires, giving it up releases, and a
 * condition wait does both. */
#include <glib.h>
#include <sanitizer/tsan_interface.h>

void __real_g_mutex_lock(GMutex *mutex);
void __real_g_mutex_unlock(GMutex *mutex);
gboolean __real_g_mutex_trylock(GMutex *mutex);
void __real_g_cond_wait(GCond *cond, GMutex *mutex);
gboolean __real_g_cond_wait_until(GCond *cond, GMutex *mutex, gint64 end_time);

void __wrap_g_mutex_lock(GMutex *mutex);
void __wrap_g_mutex_unlock(GMutex *mutex);
gboolean __wrap_g_mutex_trylock(GMutex *mutex);
void __wrap_g_cond_wait(GCond *cond, GMutex *mutex);
gboolean __wrap_g_cond_wait_until(GCond *cond, GMutex *mutex, gint64 end_time);

void __wrap_g_mutex_lock(GMutex *mutex)
{
    __real_g_mutex_lock(mutex);
    __tsan_acquire(mutex);
}

void __wrap_g_mutex_unlock(GMutex *mutex)
{
    __tsan_release(mutex);
    __real_g_mutex_unlock(mutex);
}

gboolean __wrap_g_mutex_trylock(GMutex *mutex)
{
    gboolean taken = __real_g_mutex_trylock(mutex);
    if (taken)
        __tsan_acquire(mutex);
    return taken;
}

void __wrap_g_cond_wait(GCond *cond, GMutex *mutex)
{
    __tsan_release(mutex);
    __real_g_cond_wait(cond, mutex);
    __tsan_acquire(mutex);
}

gboolean __wrap_g_cond_wait_until(GCond *cond, GMutex *mutex, gint64 end_time)
{
    __tsan_release(mutex);
    gboolean signalled = __real_g_cond_wait_until(cond, mutex, end_time);
    __tsan_acquire(mutex);
    return signalled;
}
