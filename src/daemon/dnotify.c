/*
 * dnotify — tell systemd (Type=notify) how the daemon is doing, through
 * libsystemd's sd_notify. The library is loaded only when systemd asks for
 * it (NOTIFY_SOCKET is set): linked in, it and its compression and crypto
 * libraries would cost every run of moku, a replay or a showq, for a call
 * only a service makes. Under systemd libsystemd0 is always installed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/daemon_int.h"

#define DNOTIFY_SONAME "libsystemd.so.0"

typedef int (*sd_notify_fn)(int unset_environment, const char *state);

void dnotify(struct dlog *log, const char *state)
{
    static sd_notify_fn fn;
    static int tried;
    if (!getenv("NOTIFY_SOCKET"))
        return; /* not a systemd service */
    if (!tried) {
        tried = 1;
        void *lib = dlopen(DNOTIFY_SONAME, RTLD_NOW | RTLD_LOCAL);
        void *f = lib ? dlsym(lib, "sd_notify") : NULL;
        if (!f)
            dlog(log, 0, "warning: NOTIFY_SOCKET is set but %s cannot be loaded: %s",
                 DNOTIFY_SONAME, dlerror());
        /* POSIX: a function's address from dlsym fits a function pointer. */
        *(void **)&fn = f;
    }
    if (fn)
        fn(0, state);
}
