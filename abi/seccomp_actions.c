#include "abi/seccomp_actions.h"

#include <stddef.h>

const struct seccomp_action_linux seccomp_actions_linux[SECCOMP_ACTIONS_LINUX] = {
    { SECCOMP_RET_KILL_PROCESS_LINUX, "KILL_PROCESS", SECCOMP_EFFECT_KILL_PROCESS, false },
    { SECCOMP_RET_KILL_THREAD_LINUX, "KILL_THREAD", SECCOMP_EFFECT_KILL_THREAD, false },
    { SECCOMP_RET_TRAP_LINUX, "TRAP", SECCOMP_EFFECT_SIGNAL, true },
    { SECCOMP_RET_ERRNO_LINUX, "ERRNO", SECCOMP_EFFECT_ERRNO, true },
    { SECCOMP_RET_USER_NOTIF_LINUX, "USER_NOTIF", SECCOMP_EFFECT_NOTIFY, false },
    { SECCOMP_RET_TRACE_LINUX, "TRACE", SECCOMP_EFFECT_TRACE, true },
    { SECCOMP_RET_LOG_LINUX, "LOG", SECCOMP_EFFECT_LOG, false },
    { SECCOMP_RET_ALLOW_LINUX, "ALLOW", SECCOMP_EFFECT_ALLOW, false },
};

const struct seccomp_action_linux *seccomp_action_linux(uint32_t ret)
{
    uint32_t action = ret & SECCOMP_RET_ACTION_FULL_LINUX;
    for (size_t i = 0; i < SECCOMP_ACTIONS_LINUX; i++)
        if (seccomp_actions_linux[i].value == action)
            return &seccomp_actions_linux[i];
    return NULL;
}

const struct seccomp_action_linux *seccomp_action_taken_linux(uint32_t ret)
{
    const struct seccomp_action_linux *a = seccomp_action_linux(ret);
    return a ? a : &seccomp_actions_linux[0];
}
