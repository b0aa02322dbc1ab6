/*
 * node — a compute node: its configured resources, where it belongs and
 * whether it takes work. The scheduler owns the node table; what is in use
 * on a node is the engine's (sched_node_used).
 */
#ifndef MOKU_NODE_H
#define MOKU_NODE_H

#include <stddef.h>

#include "util/err.h"

struct nprio;

enum node_state {
    NODE_UP,      /* idle or running jobs: schedulable */
    NODE_DOWN,    /* not available (Maui "Down") */
    NODE_DRAINED, /* administratively closed (Maui "Drained") */
};

struct node {
    char *name;
    int procs; /* configured processors */
    long mem;  /* MB, 0 = unknown */
    long swap; /* MB */
    long disk; /* MB */
    char **features;
    size_t nfeatures;
    char *partition; /* "DEFAULT" unless configured */
    enum node_state state;
    double speed;        /* NODECFG SPEED (relative; 1 = default) */
    long priority;       /* NODECFG PRIORITY (NODEALLOCATIONPOLICY PRIORITY) */
    struct nprio *priof; /* NODECFG PRIORITYF (policy/nprio.h), NULL = the default
                            function; owned */
    char *reason;        /* why it is down or drained, as the resource manager says (checknode);
                            NULL = none; owned */
};

/* What a node is configured with; copied by sched_add_node. */
struct node_spec {
    const char *name;
    int procs;
    long mem, swap, disk;
    const char *features; /* list separated by ',', ':' or spaces; "[a][b]" accepted; NULL = none */
    const char *partition; /* NULL = "DEFAULT" */
    enum node_state state;
    double speed; /* 0 = 1 */
    long priority;
    const char *priorityf; /* NODECFG PRIORITYF text, NULL = default; must parse */
};

/* Parse a node state name (Idle/Up/Busy/Running/Active = up, Down, Drained;
 * any case). Returns -1 on an unknown name. */
int node_state_parse(const char *s, enum node_state *out);
const char *node_state_name(enum node_state s);
/* Whether the node has the feature (exact match). */
int node_has_feature(const struct node *n, const char *feature);

#endif
