/*
 * wmhd — libmicrohttpd, loaded when the web view starts (dlopen), not when
 * moku starts. The library brings GnuTLS and a dozen more with it; linked
 * in, they cost every run of moku — a replay, a showq — about 4 MB and
 * their start-up, for a server most runs never start. The calls are
 * libmicrohttpd's own, through this table; the header is its -dev
 * package's.
 */
#ifndef MOKU_WMHD_H
#define MOKU_WMHD_H

#include <microhttpd.h>

#include "util/err.h"

struct wmhd {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                       MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    void (*stop_daemon)(struct MHD_Daemon *d);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *d,
                                                   enum MHD_DaemonInfoType info_type, ...);
    enum MHD_Result (*get_timeout)(struct MHD_Daemon *d, MHD_UNSIGNED_LONG_LONG *timeout);
    enum MHD_Result (*run)(struct MHD_Daemon *d);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status_code,
                                      struct MHD_Response *r);
    void (*destroy_response)(struct MHD_Response *r);
    const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind,
                                           const char *key);
    int (*get_connection_values_n)(struct MHD_Connection *c, enum MHD_ValueKind kind,
                                   MHD_KeyValueIteratorN iterator, void *iterator_cls);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
                                                           enum MHD_ConnectionInfoType info_type,
                                                           ...);
    void (*suspend_connection)(struct MHD_Connection *c);
    void (*resume_connection)(struct MHD_Connection *c);
    enum MHD_Result (*add_connection)(struct MHD_Daemon *d, MHD_socket fd,
                                      const struct sockaddr *addr, socklen_t addrlen);
};

/* The table, loaded at the first call (later calls return it again).
 * Errors: the library or one of its functions missing. */
const struct wmhd *wmhd_load(struct err *err);

#endif
