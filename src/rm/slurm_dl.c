/*
 * slurm_dl — libslurm, loaded when the Slurm resource manager starts
 * (dlopen), not when moku does: a machine that only simulates, or runs the
 * local resource manager, needs no Slurm installed (the .deb recommends
 * libslurm rather than depending on it).
 *
 * moku is linked without -lslurm. This file defines each libslurm function
 * the Slurm driver calls, under libslurm's own name and with its header's
 * prototype (so a change of signature is a compile error), each forwarding
 * to the library's function found by dlsym. slurm_dl_load (slurm_rm_open,
 * before anything else of Slurm's) loads them all or says what is missing;
 * a call before it is a programming error and aborts with a message.
 *
 * SLURM_SONAME is the soname of the libslurm moku is built against
 * (the Makefile reads it from libslurm.so): its ABI changes with every
 * release, so that soname and no other.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "rm/slurm_dl.h"
#include "rm/slurm_int.h"

#ifndef SLURM_SONAME
#define SLURM_SONAME "libslurm.so.38"
#endif

/* Exported by libslurm, not declared in its header (22.05); slurm_status.c
 * declares them the same way. */
extern char *slurm_job_reason_string(enum job_state_reason inx);
extern char *slurm_job_state_string(uint32_t inx);
extern void slurm_xfree_ptr(void *ptr);

/* Every function: X(return type, name, (parameters), (arguments)) for the
 * ones that return a value, V(...) for the void ones. */
#define SLURM_FUNCS                                                                                \
    V(slurm_fini, (void), ())                                                                      \
    V(slurm_init, (const char *conf), (conf))                                                      \
    V(slurm_free_ctl_conf, (slurm_conf_t * p), (p))                                                \
    V(slurm_free_job_array_resp, (job_array_resp_msg_t * p), (p))                                  \
    V(slurm_free_job_info_msg, (job_info_msg_t * p), (p))                                          \
    V(slurm_free_node_info_msg, (node_info_msg_t * p), (p))                                        \
    V(slurm_free_partition_info_msg, (partition_info_msg_t * p), (p))                              \
    V(slurm_free_reservation_info_msg, (reserve_info_msg_t * p), (p))                              \
    V(slurm_free_submit_response_response_msg, (submit_response_msg_t * p), (p))                   \
    V(slurm_hostlist_destroy, (hostlist_t hl), (hl))                                               \
    V(slurm_init_job_desc_msg, (job_desc_msg_t * d), (d))                                          \
    V(slurm_populate_node_partitions, (node_info_msg_t * n, partition_info_msg_t * p), (n, p))     \
    V(slurm_xfree_ptr, (void *p), (p))                                                             \
    X(int, slurm_get_errno, (void), ())                                                            \
    X(char *, slurm_strerror, (int e), (e))                                                        \
    X(hostlist_t, slurm_hostlist_create, (const char *s), (s))                                     \
    X(int, slurm_hostlist_find, (hostlist_t hl, const char *h), (hl, h))                           \
    X(char *, slurm_hostlist_shift, (hostlist_t hl), (hl))                                         \
    X(int, slurm_job_cpus_allocated_on_node, (job_resources_t * r, const char *n), (r, n))         \
    X(char *, slurm_job_reason_string, (enum job_state_reason r), (r))                             \
    X(char *, slurm_job_state_string, (uint32_t s), (s))                                           \
    X(int, slurm_kill_job2, (const char *id, uint16_t sig, uint16_t fl, const char *sib),          \
      (id, sig, fl, sib))                                                                          \
    X(int, slurm_load_ctl_conf, (time_t t, slurm_conf_t * *c), (t, c))                             \
    X(int, slurm_load_job, (job_info_msg_t * *r, uint32_t id, uint16_t fl), (r, id, fl))           \
    X(int, slurm_load_jobs, (time_t t, job_info_msg_t * *r, uint16_t fl), (t, r, fl))              \
    X(int, slurm_load_node, (time_t t, node_info_msg_t * *r, uint16_t fl), (t, r, fl))             \
    X(int, slurm_load_partitions, (time_t t, partition_info_msg_t * *r, uint16_t fl), (t, r, fl))  \
    X(int, slurm_load_reservations, (time_t t, reserve_info_msg_t * *r), (t, r))                   \
    X(int, slurm_requeue, (uint32_t id, uint32_t fl), (id, fl))                                    \
    X(int, slurm_resume, (uint32_t id), (id))                                                      \
    X(char *, slurm_sprint_job_info, (slurm_job_info_t * j, int one), (j, one))                    \
    X(int, slurm_submit_batch_job, (job_desc_msg_t * d, submit_response_msg_t * *r), (d, r))       \
    X(int, slurm_suspend, (uint32_t id), (id))                                                     \
    X(int, slurm_update_job, (job_desc_msg_t * d), (d))                                            \
    X(int, slurm_update_job2, (job_desc_msg_t * d, job_array_resp_msg_t * *r), (d, r))

/* The library's functions, once loaded. */
#define X(ret, name, params, args) static ret(*p_##name) params;
#define V(name, params, args) static void(*p_##name) params;
SLURM_FUNCS
#undef X
#undef V

static int loaded;

/* A Slurm call before slurm_dl_load: a bug in the driver, not bad input. */
static void need(const char *name)
{
    if (!loaded) {
        fprintf(stderr, "moku: %s called before libslurm was loaded (slurm_dl_load)\n", name);
        abort();
    }
}

#define X(ret, name, params, args)                                                                 \
    ret name params                                                                                \
    {                                                                                              \
        need(#name);                                                                               \
        return p_##name args;                                                                      \
    }
#define V(name, params, args)                                                                      \
    void name params                                                                               \
    {                                                                                              \
        need(#name);                                                                               \
        p_##name args;                                                                             \
    }
SLURM_FUNCS
#undef X
#undef V

/* One symbol into its pointer: 0, or -1 with the message. */
static int sym(void *lib, const char *name, void **out, struct err *err)
{
    /* POSIX: a function's address from dlsym fits a function pointer. */
    *out = dlsym(lib, name);
    if (!*out)
        return err_set(err, "Slurm: %s has no %s: moku was built for another Slurm release",
                       SLURM_SONAME, name);
    return 0;
}

int slurm_dl_load(struct err *err)
{
    if (loaded)
        return 0;
    /* Kept open for the process's life: the driver stays while the daemon runs
     * (slurm_fini does not unload it). RTLD_GLOBAL: libslurm's own plugins
     * resolve symbols of it. */
    void *lib = dlopen(SLURM_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        return err_set(err, "Slurm: RMCFG TYPE=SLURM needs %s (Debian's libslurm38 package): %s",
                       SLURM_SONAME, dlerror());
#define X(ret, name, params, args)                                                                 \
    if (sym(lib, #name, (void **)&p_##name, err) < 0)                                              \
        goto fail;
#define V(name, params, args) X(void, name, params, args)
    SLURM_FUNCS
#undef X
#undef V
    loaded = 1;
    return 0;
fail:
    dlclose(lib);
    return -1;
}
