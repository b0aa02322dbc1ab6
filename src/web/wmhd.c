/* wmhd — see wmhd.h. */
#include "web/wmhd.h"

#include <dlfcn.h>
#include <stddef.h>

/* Debian 12's libmicrohttpd12; the name the -dev package links against. */
#define WMHD_SONAME "libmicrohttpd.so.12"

static struct wmhd table;
static int loaded;

/* Each member and the library's name for it, in the struct's order. */
static const struct {
    size_t offset;
    const char *name;
} syms[] = {
    {offsetof(struct wmhd, start_daemon), "MHD_start_daemon"},
    {offsetof(struct wmhd, stop_daemon), "MHD_stop_daemon"},
    {offsetof(struct wmhd, get_daemon_info), "MHD_get_daemon_info"},
    {offsetof(struct wmhd, get_timeout), "MHD_get_timeout"},
    {offsetof(struct wmhd, run), "MHD_run"},
    {offsetof(struct wmhd, create_response_from_buffer), "MHD_create_response_from_buffer"},
    {offsetof(struct wmhd, add_response_header), "MHD_add_response_header"},
    {offsetof(struct wmhd, queue_response), "MHD_queue_response"},
    {offsetof(struct wmhd, destroy_response), "MHD_destroy_response"},
    {offsetof(struct wmhd, lookup_connection_value), "MHD_lookup_connection_value"},
    {offsetof(struct wmhd, get_connection_values_n), "MHD_get_connection_values_n"},
    {offsetof(struct wmhd, get_connection_info), "MHD_get_connection_info"},
    {offsetof(struct wmhd, suspend_connection), "MHD_suspend_connection"},
    {offsetof(struct wmhd, resume_connection), "MHD_resume_connection"},
    {offsetof(struct wmhd, add_connection), "MHD_add_connection"},
};

const struct wmhd *wmhd_load(struct err *err)
{
    if (loaded)
        return &table;
    /* Kept open for the process's life: the daemon's web view lives as long. */
    void *lib = dlopen(WMHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        err_set(err, "the web view needs %s (Debian's libmicrohttpd12): %s", WMHD_SONAME,
                dlerror());
        return NULL;
    }
    struct wmhd t;
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(lib, syms[i].name);
        if (!f) {
            err_set(err, "%s has no %s", WMHD_SONAME, syms[i].name);
            dlclose(lib);
            return NULL;
        }
        /* POSIX: a function's address from dlsym fits a function pointer. */
        *(void **)((char *)&t + syms[i].offset) = f;
    }
    table = t;
    loaded = 1;
    return &table;
}
