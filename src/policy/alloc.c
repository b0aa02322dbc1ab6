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
 * freemap keeps one bit per node that is up and has processors free, so
 * finding room on a 100,000-node cluster skips full nodes 64 at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "util/mem.h"

void alloc_node_changed(struct sched *s, size_t i)
{
    const struct node *n = &s->nodes[i];
    uint64_t bit = (uint64_t)1 << (i % 64);
    if (n->state == NODE_UP && n->procs_used < n->procs)
        s->freemap[i / 64] |= bit;
    else
        s->freemap[i / 64] &= ~bit;
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

/* Tasks of j that fit on node n now. */
static unsigned tasks_fitting(const struct node *n, const struct job *j)
{
    return (unsigned)((n->procs - n->procs_used) / j->procs_per_task);
}

int alloc_job(struct sched *s, struct job *j)
{
    size_t cap = 0;
    unsigned left = (unsigned)j->tasks;
    j->slots = NULL;
    j->nslots = 0;
    for (size_t i = next_free(s, 0); left && i < s->nnodes; i = next_free(s, i + 1)) {
        unsigned k = tasks_fitting(&s->nodes[i], j);
        if (k > left)
            k = left;
        if (!k)
            continue;
        j->slots = xgrow(j->slots, &cap, j->nslots + 1, sizeof *j->slots);
        j->slots[j->nslots++] = (struct job_slot){(unsigned)i, k * (unsigned)j->procs_per_task};
        s->nodes[i].procs_used += (int)(k * (unsigned)j->procs_per_task);
        alloc_node_changed(s, i);
        left -= k;
    }
    if (left) {
        alloc_release(s, j); /* no side effects on failure */
        return -1;
    }
    return 0;
}

void alloc_release(struct sched *s, struct job *j)
{
    for (size_t k = 0; k < j->nslots; k++) {
        struct node *n = &s->nodes[j->slots[k].node];
        n->procs_used -= (int)j->slots[k].procs;
        alloc_node_changed(s, j->slots[k].node);
    }
    free(j->slots);
    j->slots = NULL;
    j->nslots = 0;
}
