/*
 * drights — who may do what in the daemon: who is asking (the kernel says,
 * never the request: drights_peer), their ADMIN level, and the right the
 * command table gives each command, checked before its handler runs.
 *
 * Anyone may look at the queue's summary, their own jobs, showstart and
 * showbf; ADMIN3 may look at everything. A user may cancel, hold and
 * release their own jobs, and move them to a QOS their credentials allow;
 * ADMIN1 and ADMIN2 may do that to any job and also setspri, runjob,
 * mjobctl, setres and releaseres (with RESCTLPOLICY ANY, any user may
 * setres, and releaseres what they created); ADMIN1 alone controls the
 * scheduler (schedctl, resetstats, changeparam). root and the daemon's own
 * user are always ADMIN1. An ADMINn entry names a user, or a group whose
 * members it admits. The rights that depend on the job or the reservation
 * are checked by the handlers, with drights_may_change.
 */
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "daemon/dreply.h"
#include "daemon/drights.h"
#include "util/idname.h"
#include "util/mem.h"

/* Whether the comma/space list names user u or a group p belongs to. */
static int list_admits(const char *list, const struct peer *p)
{
    if (!list)
        return 0;
    char *copy = xstrdup(list), *save = NULL;
    int yes = 0;
    for (char *w = strtok_r(copy, " \t,:", &save); w && !yes; w = strtok_r(NULL, " \t,:", &save)) {
        if (strcmp(w, p->user) == 0 || strcmp(w, "ALL") == 0) {
            yes = 1;
            break;
        }
        struct group *g = getgrnam(w);
        if (!g)
            continue;
        if (g->gr_gid == p->gid) {
            yes = 1;
            break;
        }
        for (char **m = g->gr_mem; *m && !yes; m++)
            yes = strcmp(*m, p->user) == 0;
    }
    free(copy);
    return yes;
}

static long mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec + 1; /* never 0: 0 marks an empty slot */
}

/* Who p->uid and p->gid are, from the user and group databases and the
 * ADMIN lists. */
static void peer_look_up(struct dmn *d, struct peer *p)
{
    idname_user(p->uid, p->user, sizeof p->user);
    idname_group(p->gid, p->group, sizeof p->group);
    p->admin = 0;
    if (p->uid == 0 || p->uid == geteuid()) {
        p->admin = 1;
        return;
    }
    static const char *const lists[] = {"ADMIN1", "ADMIN2", "ADMIN3"};
    for (int k = 0; k < 3 && !p->admin; k++)
        if (cfg_is_set(d->cfg, lists[k], NULL) && list_admits(cfg_str(d->cfg, lists[k], NULL), p))
            p->admin = k + 1;
}

/*
 * A submission, a showq: each request used to read /etc/passwd and
 * /etc/group (and the ADMIN lists' groups) again, a good part of a
 * submission's time (issue 31). What a uid and gid were found to be is kept
 * PEER_CACHE_SECONDS: a user renamed, or added to or removed from an ADMIN
 * group, is seen within that time; a reload (new ADMIN lists) at once
 * (drights_forget). Slots are by uid and gid; a collision replaces.
 */
void drights_peer(struct dmn *d, struct peer *p)
{
    struct peer_cache *c = &d->peers;
    size_t i = ((size_t)p->uid * 2654435761u ^ (size_t)p->gid * 40503u) % PEER_CACHE_SLOTS;
    long now = mono_seconds();
    if (c->at[i] && now - c->at[i] < PEER_CACHE_SECONDS && c->p[i].uid == p->uid &&
        c->p[i].gid == p->gid) {
        *p = c->p[i];
        return;
    }
    peer_look_up(d, p);
    c->p[i] = *p;
    c->at[i] = now;
}

void drights_forget(struct dmn *d)
{
    memset(&d->peers, 0, sizeof d->peers);
}

static int is_owner(const struct peer *p, const struct djob *dj)
{
    return (long)p->uid == dj->rec.uid;
}

int drights_may_change(const struct peer *p, const struct djob *dj)
{
    return is_owner(p, dj) || (p->admin >= 1 && p->admin <= 2);
}

const char *drights_checkjob_id(int argc, char **argv, int *json)
{
    const char *id = NULL;
    *json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--format=json") == 0 ||
            (strcmp(argv[i], "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "json") == 0))
            *json = 1;
        else if (argv[i][0] != '-' && !id && (i == 0 || strcmp(argv[i - 1], "--format") != 0))
            id = argv[i];
    }
    return id;
}

long drights_job_uid(struct dmn *d, const char *id)
{
    struct djob *dj = djobs_find(d, id);
    if (dj)
        return dj->rec.uid;
    char *end;
    long n = strtol(id, &end, 10);
    struct store_job rec;
    if (*id == '\0' || *end != '\0' || n <= 0 || store_job_get(d->st, n, &rec, NULL) != 1)
        return -1;
    long uid = rec.uid;
    store_job_free(&rec);
    return uid;
}

/* Whether p is at least ADMINn (1 is the highest). */
static int admin_at_least(const struct peer *p, int n)
{
    return p->admin >= 1 && p->admin <= n;
}

/*
 * The right of command def (cmd as typed), checked before its handler
 * runs: NULL when p may run it, else the refusal. The rights that depend
 * on the job or reservation (CMD_RIGHT_OWNER, CMD_RIGHT_CREATOR) are the
 * handler's to check.
 *
 * What an ordinary user may look at (Maui: "users are only permitted to see
 * details of jobs they own"; ADMIN3 "is granted access to all informational
 * Maui commands"): the queue summary (showq, with -b and the filters, not
 * the running or idle detail of -r and -i), their own jobs in detail
 * (checkjob), showstart, showbf, Torque's qstat and pbsnodes. The rest —
 * checkjob of another's job, checknode, diagnose, showconfig, showstats,
 * showres — is for ADMIN1..3.
 */
json_t *drights_refused(struct dmn *d, const struct peer *p, const struct cmd_def *def,
                        const char *cmd, int argc, char **argv)
{
    if (def->flags & CMD_OWN_REFUSAL)
        return NULL;
    switch (def->right) {
    case CMD_RIGHT_ADMIN1:
        if (p->admin != 1)
            return dreply_err("%s: user %s is not authorized (ADMIN1 only)", cmd, p->user);
        return NULL;
    case CMD_RIGHT_ADMIN2:
        if (!admin_at_least(p, 2))
            return dreply_err("%s: user %s is not authorized (ADMIN1 or ADMIN2 only)", cmd,
                              p->user);
        return NULL;
    case CMD_RIGHT_ADMIN3:
        if (!admin_at_least(p, 3))
            return dreply_err("%s: user %s is not authorized (ADMIN1, ADMIN2 or ADMIN3)", cmd,
                              p->user);
        return NULL;
    case CMD_RIGHT_QUEUE:
        for (int i = 0; !admin_at_least(p, 3) && i < argc; i++)
            if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "-i") == 0)
                return dreply_err("%s %s: user %s is not authorized (ADMIN1, ADMIN2 or "
                                  "ADMIN3; showq and showq -b show the queue to everyone)",
                                  cmd, argv[i], p->user);
        return NULL;
    case CMD_RIGHT_SEE_OWN: {
        if (admin_at_least(p, 3))
            return NULL;
        int json;
        const char *id = drights_checkjob_id(argc, argv, &json);
        long uid = id ? drights_job_uid(d, id) : -1;
        if (uid >= 0 && uid != (long)p->uid)
            return dreply_err("%s: user %s is not authorized to see job '%.64s' (its "
                              "owner and ADMIN1, ADMIN2 or ADMIN3 may)",
                              cmd, p->user, id);
        return NULL;
    }
    case CMD_RIGHT_ANYONE:
    case CMD_RIGHT_OWNER:
    case CMD_RIGHT_CREATOR:
        break;
    }
    return NULL;
}
