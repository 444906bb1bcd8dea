/* Linux's names for its standard signals. */
#ifndef ABI_SIGNAL_NAMES_H
#define ABI_SIGNAL_NAMES_H

/* "SIGSEGV" for 11; NULL for 0, real-time signals and the rest. */
const char *signal_name_linux(int sig);

#endif
