/* wpeer — see wpeer.h. One netlink exchange per lookup: a socket, one
 * request, one reply (the kernel answers an exact lookup before sendmsg
 * returns), closed again; a few microseconds, once per connection. */
#include "web/wpeer.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The states of a socket whose owner is still the one who made it: the
 * kernel keeps the uid of a full socket until it is freed, but reports 0
 * for TIME_WAIT and for a request socket (SYN_RECV / NEW_SYN_RECV). */
#define WPEER_STATES                                                                               \
    ((1u << TCP_ESTABLISHED) | (1u << TCP_FIN_WAIT1) | (1u << TCP_FIN_WAIT2) |                     \
     (1u << TCP_CLOSE_WAIT) | (1u << TCP_LAST_ACK) | (1u << TCP_CLOSING))

int wpeer_loopback(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 24) == 127;
}

/* The request: the socket whose local end is client and remote end server. */
struct wpeer_req {
    struct nlmsghdr h;
    struct inet_diag_req_v2 r;
};

static void fill_request(struct wpeer_req *q, const struct sockaddr_in *client,
                         const struct sockaddr_in *server)
{
    memset(q, 0, sizeof *q);
    q->h.nlmsg_len = sizeof *q;
    q->h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q->h.nlmsg_flags = NLM_F_REQUEST; /* one socket, not a dump */
    q->h.nlmsg_seq = 1;
    q->r.sdiag_family = AF_INET;
    q->r.sdiag_protocol = IPPROTO_TCP;
    q->r.idiag_states = WPEER_STATES;
    q->r.id.idiag_sport = client->sin_port;
    q->r.id.idiag_dport = server->sin_port;
    q->r.id.idiag_src[0] = client->sin_addr.s_addr;
    q->r.id.idiag_dst[0] = server->sin_addr.s_addr;
    q->r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    q->r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
}

/* Whether the reply names exactly the socket asked for, connected, and
 * still held by a process. The inode matters: the kernel reports uid 0 for
 * a socket whose process closed it (orphaned: sock_i_uid has no inode to
 * read) and for a TIME_WAIT entry, whose state reads FIN_WAIT2 when it
 * came from one. A client that connects, sends a stolen cookie and closes
 * at once must not pass for root. */
static int is_the_socket(const struct inet_diag_msg *m, const struct wpeer_req *q)
{
    return m->idiag_family == AF_INET && m->idiag_inode != 0 && m->idiag_state < 32 &&
           (WPEER_STATES & (1u << m->idiag_state)) && m->id.idiag_sport == q->r.id.idiag_sport &&
           m->id.idiag_dport == q->r.id.idiag_dport && m->id.idiag_src[0] == q->r.id.idiag_src[0] &&
           m->id.idiag_dst[0] == q->r.id.idiag_dst[0];
}

/* Read the one reply to q on nl into *uid. */
static int read_reply(int nl, const struct wpeer_req *q, uid_t *uid, struct err *err)
{
    /* The kernel has answered by now; the wait only guards against a
     * kernel that does not (a bound, never a hang of the daemon). */
    struct pollfd p = {.fd = nl, .events = POLLIN};
    if (poll(&p, 1, 100) != 1)
        return err_set(err, "the kernel's socket diagnostics did not answer");
    union {
        struct nlmsghdr h;
        char raw[1024];
    } buf;
    ssize_t n = recv(nl, &buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0)
        return err_set(err, "socket diagnostics: %s", strerror(errno));
    const struct nlmsghdr *h = &buf.h;
    if (!NLMSG_OK(h, (size_t)n) || h->nlmsg_seq != q->h.nlmsg_seq)
        return err_set(err, "socket diagnostics: a reply that is not ours");
    if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(h);
        int code = h->nlmsg_len >= NLMSG_LENGTH(sizeof *e) ? -e->error : EPROTO;
        return err_set(err, "the client's socket is not known to the kernel (%s)",
                       code == ENOENT ? "gone" : strerror(code));
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
        return err_set(err, "socket diagnostics: an unexpected reply");
    const struct inet_diag_msg *m = NLMSG_DATA(h);
    if (!is_the_socket(m, q))
        return err_set(err, "the client's socket is closed or no longer any process's");
    *uid = (uid_t)m->idiag_uid;
    return 0;
}

int wpeer_lookup(const struct sockaddr_in *client, const struct sockaddr_in *server, uid_t *uid,
                 struct err *err)
{
    if (client->sin_family != AF_INET || server->sin_family != AF_INET ||
        !wpeer_loopback(&client->sin_addr) || !wpeer_loopback(&server->sin_addr))
        return err_set(err, "not a connection from this machine (IPv4 loopback)");
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return err_set(err, "socket diagnostics: %s", strerror(errno));
    struct wpeer_req q;
    fill_request(&q, client, server);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    int rc;
    if (sendto(nl, &q, sizeof q, 0, (struct sockaddr *)&kernel, sizeof kernel) != sizeof q)
        rc = err_set(err, "socket diagnostics: %s", strerror(errno));
    else
        rc = read_reply(nl, &q, uid, err);
    close(nl);
    return rc;
}

int wpeer_uid(int fd, uid_t *uid, struct err *err)
{
    struct sockaddr_in peer, self;
    socklen_t np = sizeof peer, ns = sizeof self;
    if (getpeername(fd, (struct sockaddr *)&peer, &np) < 0 ||
        getsockname(fd, (struct sockaddr *)&self, &ns) < 0)
        return err_set(err, "the connection: %s", strerror(errno));
    if (np != sizeof peer || ns != sizeof self)
        return err_set(err, "not an IPv4 connection");
    return wpeer_lookup(&peer, &self, uid, err);
}
