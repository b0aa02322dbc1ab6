/*
 * alloc — node allocation: which nodes a starting job gets.
 *
 * The plan (policy/iter.c) decides *when* a job starts by counting free
 * processors; this module decides *where*, at the moment of the start. Node
 * access is shared (Maui's default NODEACCESSPOLICY SHARED): tasks of
 * different jobs may share a node, so any processors will do and the choice
 * cannot delay anyone. Nodes are taken in table order (first available);
 * Maui's other NODEALLOCATIONPOLICY values matter once nodes differ, and
 * come with node features.
 *
 * Cost: a start or an end touches each node the job holds once, in the
 * dense node_cap/node_used arrays; freemap (one bit per node with room)
 * skips full nodes 64 at a time, so a 100,000-node cluster costs what the
 * job's own nodes cost.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "util/mem.h"

static void set_free_bit(struct sched *s, size_t i)
{
    uint64_t bit = (uint64_t)1 << (i % 64);
    if (s->node_used[i] < s->node_cap[i])
        s->freemap[i / 64] |= bit;
    else
        s->freemap[i / 64] &= ~bit;
}

void alloc_node_changed(struct sched *s, size_t i)
{
    const struct node *n = &s->nodes[i];
    s->node_cap[i] = n->state == NODE_UP ? n->procs : 0;
    set_free_bit(s, i);
}

/* Next node at or after i with free processors, or nnodes. */
static size_t next_free(const struct sched *s, size_t i)
{
    size_t words = (s->nnodes + 63) / 64;
    size_t w = i / 64;
    if (w >= words)
        return s->nnodes;
    uint64_t bits = s->freemap[w] & (~(uint64_t)0 << (i % 64));
    while (!bits) {
        if (++w >= words)
            return s->nnodes;
        bits = s->freemap[w];
    }
    size_t found = w * 64 + (size_t)__builtin_ctzll(bits);
    return found < s->nnodes ? found : s->nnodes;
}

/* Record `procs` on node i for j, extending the last run when it can. */
static void add_slot(struct job *j, size_t *cap, size_t i, unsigned procs)
{
    struct job_slot *last = j->nslots ? &j->slots[j->nslots - 1] : NULL;
    if (last && last->procs == procs && last->node + last->nnodes == i) {
        last->nnodes++;
        return;
    }
    j->slots = xgrow(j->slots, cap, j->nslots + 1, sizeof *j->slots);
    j->slots[j->nslots++] = (struct job_slot){(unsigned)i, 1, procs};
}

int alloc_job(struct sched *s, struct job *j)
{
    size_t cap = 0;
    unsigned ppt = (unsigned)j->procs_per_task, left = (unsigned)j->tasks;
    j->slots = NULL;
    j->nslots = 0;
    for (size_t i = next_free(s, 0); left && i < s->nnodes; i = next_free(s, i + 1)) {
        unsigned room = (unsigned)(s->node_cap[i] - s->node_used[i]);
        unsigned k = ppt == 1 ? room : room / ppt; /* most jobs: one processor a task */
        if (k > left)
            k = left;
        if (!k)
            continue;
        add_slot(j, &cap, i, k * ppt);
        s->node_used[i] += (int)(k * ppt);
        set_free_bit(s, i);
        left -= k;
    }
    if (left) {
        alloc_release(s, j); /* no side effects on failure */
        return -1;
    }
    return 0;
}

int alloc_exact(struct sched *s, struct job *j, const struct job_slot *slots, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (slots[k].nnodes == 0 || (size_t)slots[k].node + slots[k].nnodes > s->nnodes)
            return -1;
    size_t cap = 0;
    j->slots = NULL;
    j->nslots = 0;
    for (size_t k = 0; k < n; k++)
        for (unsigned i = slots[k].node; i < slots[k].node + slots[k].nnodes; i++) {
            /* A job found running is where it is, even on a node that has
             * shrunk since: used may exceed cap until it ends. */
            add_slot(j, &cap, i, slots[k].procs);
            s->node_used[i] += (int)slots[k].procs;
            set_free_bit(s, i);
        }
    return 0;
}

/* Mark nodes [from, to) as having room, a word at a time. */
static void set_free_range(struct sched *s, size_t from, size_t to)
{
    while (from < to) {
        size_t w = from / 64, lo = from % 64;
        size_t hi = (to - w * 64) < 64 ? to - w * 64 : 64;
        uint64_t mask =
            (hi == 64 ? ~(uint64_t)0 : (((uint64_t)1 << hi) - 1)) & (~(uint64_t)0 << lo);
        s->freemap[w] |= mask;
        from = w * 64 + hi;
    }
}

void alloc_release(struct sched *s, struct job *j)
{
    for (size_t k = 0; k < j->nslots; k++) {
        const struct job_slot *sl = &j->slots[k];
        size_t end = (size_t)sl->node + sl->nnodes;
        for (size_t i = sl->node; i < end; i++)
            s->node_used[i] -= (int)sl->procs;
        /* Each of these nodes just gave back processors: all have room. */
        set_free_range(s, sl->node, end);
    }
    free(j->slots);
    j->slots = NULL;
    j->nslots = 0;
}
