/*
 * resv — reservations as the engine's users see them: create, restore, mirror,
 * release and change administrative ones, read standing ones, and ask which
 * reservation a job may use (policy/resv.c; the types are core/resv.h).
 */
#ifndef MOKU_POLICY_RESV_H
#define MOKU_POLICY_RESV_H

#include "core/resv.h"
#include "core/sched.h"
#include "policy/acl.h"

struct cfg;
struct srcfg_def;

/* ---- reservations (core/resv.h; policy/resv.c) ---- */

/*
 * Create an administrative reservation (setres) at `now`: choose its nodes
 * (HOSTLIST hosts, or TASKCOUNT tasks on nodes that have the features and
 * partition, without a conflicting reservation: one that is DEDICATED, or
 * any when the new one is), give it the id <base>.<n> and make it count from
 * the next iteration. Errors: bad window (end <= start, end <= now), a host
 * or regex that matches no node, fewer tasks found than asked (unless
 * BESTEFFORT). Nothing is created on error.
 */
struct resv *sched_resv_create(struct sched *s, const struct resv_spec *spec, long now,
                               struct err *err);
/* The number the next reservation id <base>.<n> gets (0 for a base never
 * used). */
long sched_resv_next_number(const struct sched *s, const char *base);
/* Ids <base>.<n> go on from `next` at least (a driver that keeps the
 * numbering across restarts, so that a released id is never given again;
 * a lower value than the scheduler's own changes nothing). */
void sched_resv_number_from(struct sched *s, const char *base, long next);
/* Same, with the id given (the daemon's store restoring its reservations);
 * the nodes given are taken as they are (indices into the node table). */
struct resv *sched_resv_restore(struct sched *s, const struct resv_spec *spec, const char *id,
                                const struct resv_node *nodes, size_t nnodes, long created,
                                struct err *err);
/* A reservation the resource manager holds (Slurm's), mirrored as
 * RESV_EXTERNAL with the id and nodes given, made at now (so jobs already
 * running on its nodes stay). Only the driver changes it
 * (sched_resv_drop_external); release and setres -m refuse it. */
struct resv *sched_resv_external(struct sched *s, const struct resv_spec *spec, const char *id,
                                 const struct resv_node *nodes, size_t nnodes, long now,
                                 struct err *err);
/* Remove external reservation id; -1 when there is none. */
int sched_resv_drop_external(struct sched *s, const char *id);
/* Release (destroy) reservation id. Errors: no such reservation; a standing
 * reservation's instance (change SRCFG instead); an external one. */
int sched_resv_release(struct sched *s, const char *id, struct err *err);
/* What setres -m changes of an administrative reservation: its window, and
 * its ACL and flags when given. */
struct resv_change {
    long start, end;       /* the new window, end > start */
    const struct acl *acl; /* the new ACL (copied), NULL: kept */
    int set_flags;         /* flags replace the old ones */
    unsigned flags;
};
/* Change administrative reservation id in place: same id, nodes, owner and
 * creation time, a new window, ACL or flags. Refused when another
 * reservation keeps it off one of its nodes over the new window (a
 * DEDICATED one, or any when it is DEDICATED; FORCE overrides), for a
 * standing reservation's instance, or an empty window. The reservation is
 * a new object afterwards (its serial changes; pointers to the old one
 * stay valid until the next iteration, as after a release). */
int sched_resv_modify(struct sched *s, const char *id, const struct resv_change *ch,
                      struct err *err);
/* Reservations in creation order; valid until the next change. */
size_t sched_nresv(const struct sched *s);
const struct resv *sched_resv_at(const struct sched *s, size_t i);
const struct resv *sched_find_resv(const struct sched *s, const char *id);
/* Whether name is a reservation's id, an administrative reservation's name
 * or a standing reservation's (SRCFG) name: what ADVRES may ask for. */
int sched_resv_name_known(const struct sched *s, const char *name);
/*
 * Standing reservations from cfg (SRCFG and the legacy SR* parameters,
 * policy/srcfg.h); their instances are created at the next iteration and
 * kept DEPTH periods ahead, in the calendar of zone (UTC unless told).
 * All or nothing; errors name file, line and reservation.
 */
int sched_standing_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err);
/* Standing reservations that can place nothing whatever happens (a HOSTLIST
 * host no node matches, features or a partition no node has, tasks bigger
 * than every node, STARTTIME equal to ENDTIME), one line each,
 * "<file>:<line>: SRCFG[<name>]: <why>: it reserves nothing\n"; NULL when
 * there are none. Ask after the nodes are added. Caller frees. */
char *sched_standing_warnings(const struct sched *s);
/* The standing reservation definitions, in srcfg_load's order. */
size_t sched_nstanding(const struct sched *s);
const struct srcfg_def *sched_standing_at(const struct sched *s, size_t i);
/* Why definition i's current window has no instance (NULL when it has, or
 * none was due), and in *windows (may be NULL) how many of its windows so
 * far went wanting for a reason that may pass (nodes down, DEDICATED
 * reservations in the way; not those sched_standing_warnings names). */
const char *sched_standing_wanting(const struct sched *s, size_t i, long *windows);
/* The calendar standing reservations follow (srtime.h), and the epoch of
 * driver time 0 (sched_set_epoch) is used to turn driver time into dates. */
void sched_set_zone(struct sched *s, int local, long offset);
void sched_get_zone(const struct sched *s, int *local, long *offset);
/* The epoch time of driver time 0 (sched_set_epoch). */
long sched_epoch(const struct sched *s);
/* Whether job j may use reservation r if it ran over [start, start +
 * walltime), and with which affinity (ACL_NONE: no). */
enum acl_affinity sched_resv_access(const struct sched *s, const struct resv *r,
                                    const struct job *j, long start);
/* Why job j, which asks for a reservation by name (ADVRES), can run in none:
 * no reservation or standing reservation of that name admits it, whatever
 * its start ("it asks for reservation 'x', whose ACL does not admit it
 * (USER==bob+)"), or there is none of that name. NULL when one admits it or
 * it asks for none. The text is written into buf (n bytes). */
const char *sched_job_advres_refused(const struct sched *s, const struct job *j, char *buf,
                                     size_t n);

/* The next instant after now at which a reservation begins or ends
 * (AVAIL_NEVER-like far future if none), standing ones only when asked:
 * drivers wake the scheduler then, as for a job's end. */
long sched_next_event(const struct sched *s, long now, int standing);

#endif
