#include "abi/abi.h"

#include <glib.h>

const char *entry_name(enum entry e)
{
    switch (e) {
    case ENTRY_SYSCALL64:
        return "syscall";
    case ENTRY_INT80:
        return "int 0x80";
    case ENTRY_SYSENTER32:
        return "sysenter";
    case ENTRY_SYSCALL32:
        return "32-bit syscall";
    }
    return "?";
}

const struct abi *abi_for_entry(enum entry e)
{
    return e == ENTRY_SYSCALL64 ? &abi_x86_64 : &abi_ia32;
}

const char *abi_call_name(const struct abi *abi, int64_t nr)
{
    if (nr < 0 || (uint64_t)nr >= *abi->nnames)
        return NULL;
    return abi->names[nr];
}

bool abi_in_strict_list(const struct abi *abi, int64_t nr)
{
    for (size_t i = 0; i < abi->nstrict; i++)
        if (abi->strict[i] == nr)
            return true;
    return false;
}

char *abi_strict_text(const struct abi *abi)
{
    GString *text = g_string_new("{");
    for (size_t i = 0; i < abi->nstrict; i++)
        g_string_append_printf(text, "%s%s", i ? ", " : "", abi_call_name(abi, abi->strict[i]));
    g_string_append_c(text, '}');
    return g_string_free(text, FALSE);
}
