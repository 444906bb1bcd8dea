#include "emu/engine/hostmem.h"

#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

static uint64_t limit;
static _Atomic uint64_t charged;

uint64_t hostmem_default_limit(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
        return (uint64_t)pages * (uint64_t)size / 2;
#endif
    return (uint64_t)4 << 30;
}

void hostmem_set_limit(uint64_t bytes) { limit = bytes; }

uint64_t hostmem_limit(void) { return limit ? limit : hostmem_default_limit(); }

uint64_t hostmem_resident(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
#if defined(__APPLE__)
    return (uint64_t)ru.ru_maxrss; /* bytes there */
#else
    return (uint64_t)ru.ru_maxrss * 1024; /* KiB on Linux and the BSDs */
#endif
}

uint64_t hostmem_in_use(void) { return hostmem_resident() + atomic_load(&charged); }

bool hostmem_charge(uint64_t bytes)
{
    uint64_t lim = hostmem_limit(), resident = hostmem_resident();
    uint64_t now = atomic_load(&charged);
    do {
        if (resident + now + bytes > lim || resident + now + bytes < bytes)
            return false;
    } while (!atomic_compare_exchange_weak(&charged, &now, now + bytes));
    return true;
}

void hostmem_release(uint64_t bytes) { atomic_fetch_sub(&charged, bytes); }

int hostmem_check_interval_ms(uint64_t in_use)
{
    uint64_t lim = hostmem_limit();
    if (in_use >= lim)
        return 1;
    uint64_t ms = (lim - in_use) / HOSTMEM_RATE_PER_MS;
    return ms < 1 ? 1 : ms > 100 ? 100 : (int)ms;
}
