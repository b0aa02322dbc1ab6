/*
 * srcfg — standing reservation definitions read from maui.cfg (digest §6.2,
 * Admin Guide 7.1.5.2): every SRCFG[name] object and every reservation the
 * legacy indexed parameters (SRSTARTTIME[name], SRHOSTLIST[name], ...) define,
 * parsed and checked into plain records.
 *
 * What it is not: it creates no reservation, looks at no node and reads no
 * clock. The reservation code turns a record into instances (srtime) placed on
 * nodes; hosts are kept as text (names and regular expressions) because the
 * node table is not known here.
 *
 * Decisions (where Maui 3.3.1 and its Guide disagree, or moku differs):
 *  - ACCESS defaults to SHARED, as in Maui 3.3.1's code (the Guide says
 *    DEDICATED). That is what sites ran, and it is what lets the Guide's own
 *    stacking example (interactive and debug both on node001) hold whatever
 *    order the reservations are placed in. FLAGS=DEDICATEDRESOURCE is the
 *    flag spelling of ACCESS=DEDICATED; unlike Maui, a later FLAGS= does not
 *    clear ACCESS=DEDICATED.
 *  - Legacy parameters and SRCFG with the same name describe one reservation
 *    (Maui's index is the name); for an attribute given both ways SRCFG wins
 *    (Maui applies SRCFG after the plain parameters). SRNAME[i] (Maui 3.2,
 *    ignored by 3.3.1) renames legacy reservation i.
 *  - WSTARTTIME/WENDTIME (Maui 3.2 week offsets) are STARTTIME/ENDTIME of a
 *    PERIOD=WEEK reservation; they imply WEEK when PERIOD is not given.
 *  - TIMELIMIT and MAXTIME (SRMAXTIME) are duration ACL entries. SRTIMELOGIC
 *    AND (ignored by 3.3.1) marks them required, which is what the Guide says
 *    it meant. PROCLIMIT/TASKLIMIT are refused: moku's ACL has no such type.
 *  - A reservation must give TASKCOUNT and/or HOSTLIST (Guide 7.1.5.1.3);
 *    Maui silently creates nothing without them, moku says so.
 */
#ifndef MOKU_SRCFG_H
#define MOKU_SRCFG_H

#include <stddef.h>

#include "core/params.h" /* SRCFG_* flags, srcfg_access, srcfg_res */
#include "policy/acl.h"
#include "policy/srtime.h"
#include "util/err.h"

struct cfg;

/* A HOSTLIST item: a host name, or a host regular expression (an item with
 * one of [ ] * ? + ^ $ ( ) { } | \; checked with regcomp REG_EXTENDED).
 * Whether a regex must match the whole name is the placer's business. */
struct srcfg_host {
    char *text;
    int regex;
};

enum srcfg_event { SRCFG_EV_CREATE, SRCFG_EV_START, SRCFG_EV_END, SRCFG_EV_MINLOAD };
enum srcfg_action { SRCFG_ACT_CANCEL, SRCFG_ACT_EXEC, SRCFG_ACT_SUBMIT };

/* TRIGGER=<event>[+<offset>][@<threshold>];<action>[@<data>] (':' may stand
 * for ';', as in the Guide's "start+5:00:00:exec@/usr/local/domail.pl").
 * Kept for the reservation code; nothing runs them yet. */
struct srcfg_trigger {
    enum srcfg_event event;
    long offset; /* seconds after the event, >= 0 */
    int has_threshold;
    double threshold; /* minload only */
    enum srcfg_action action;
    char *data; /* exec: command, submit: script; NULL for cancel */
};

struct srcfg_def {
    char *name;
    char *where;             /* "<file>:<line>: SRCFG[<name>]", for messages about it */
    struct srtime_spec time; /* PERIOD, DAYS, STARTTIME/ENDTIME (or W*), DEPTH */
    long taskcount;          /* 0: one task per HOSTLIST host (non-floating) */
    long tpn;                /* minimum tasks per node, 0 = no constraint */
    struct srcfg_res res;
    struct srcfg_host *hosts;
    size_t nhosts;
    char **features; /* NODEFEATURES: every one required */
    size_t nfeatures;
    char *partition; /* NULL = any; "ALL" may span partitions */
    /* Floating: TASKCOUNT given; the tasks go wherever they fit (HOSTLIST, if
     * any, is where they are looked for first — Guide: "reserve the hostlist
     * nodes first and then seek additional resources outside of this list").
     * Non-floating: HOSTLIST only; every listed host, whatever its state. */
    int floating;
    unsigned flags; /* SRCFG_* */
    enum srcfg_access access;
    enum acl_type owner_type; /* meaningful when owner != NULL */
    char *owner;              /* OWNER=<TYPE>:<NAME>, or NULL */
    long priority;
    char *chargeaccount; /* NULL if none */
    long idletime;       /* IDLETIME seconds, 0 = none */
    struct acl *acl;     /* never NULL; empty = blocks every job */
    struct srcfg_trigger *triggers;
    size_t ntriggers;
    char *warnings; /* lines "<file>:<line>: SRCFG[<name>] FLAGS: ..." ending in '\n' for
                       flags moku does not act on, or NULL */
};

/*
 * Read every standing reservation of cfg into a new array: SRCFG objects in
 * order of first appearance, then legacy-only reservations by index (numbers
 * ascending, then names in strcmp order).
 * All or nothing: on error *defs is NULL, *n 0 and err reads
 * "<file>:<line>: SRCFG[<name>] <ATTR>: <what>" (legacy parameters, whose
 * line cfg does not keep: "SR<ATTR>[<name>]: <what>"). No reservation is not
 * an error (*defs NULL, *n 0). Caller frees with srcfg_free.
 */
int srcfg_load(const struct cfg *cfg, struct srcfg_def **defs, size_t *n, struct err *err);

/* Free an array from srcfg_load; srcfg_free(NULL, 0) is a no-op. */
void srcfg_free(struct srcfg_def *defs, size_t n);

/* "BYNAME" etc. for one SRCFG_* bit, "?" for others. */
const char *srcfg_flag_name(unsigned flag);
/* Whether name is one of Maui's reservation flags that moku does not act on
 * (TIMEFLEX, ADVRES, DEDICATEDNODE, META): a warning in maui.cfg (the
 * definition's warnings), refused by setres -x; never accepted in silence. */
int srcfg_flag_unsupported(const char *name);

#endif
