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
 * skips full nodes 64 at a time and its summary freesum (one bit per word
 * with room) 4,096 at a time, so a 100,000-node cluster costs what the
 * job's own nodes cost. Where no node has more than one processor (CEA
 * Curie as one-processor nodes) a node with room is an empty one: a run of
 * free bits is taken whole, found with find-first-set, one slot a run.
 *
 * Memory, as Maui places it: a job that asks for memory (per task, or per
 * node as Slurm's --mem) takes a node only where the node's known memory
 * still holds it, and as many tasks as both its free processors and its
 * free memory hold. A node whose memory is not known (0) counts only its
 * processors. An exclusive job (Slurm's --exclusive) takes whole nodes no
 * job uses, and no other job shares them. Jobs asking for neither keep the
 * plain walk below, which never looks at memory.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/nprio.h"
#include "util/mem.h"

/* Keep freesum's bit for freemap word w. */
static inline void sum_update(struct sched *s, size_t w)
{
    uint64_t bit = (uint64_t)1 << (w % 64);
    if (s->nt.freemap[w])
        s->nt.freesum[w / 64] |= bit;
    else
        s->nt.freesum[w / 64] &= ~bit;
}

/* freesum after nodes of freemap word w were taken: its bit can only go. */
static inline void sum_taken(struct sched *s, size_t w)
{
    if (!s->nt.freemap[w])
        s->nt.freesum[w / 64] &= ~((uint64_t)1 << (w % 64));
}

static void set_free_bit(struct sched *s, size_t i)
{
    uint64_t bit = (uint64_t)1 << (i % 64);
    if (s->nt.node_used[i] < s->nt.node_cap[i])
        s->nt.freemap[i / 64] |= bit;
    else
        s->nt.freemap[i / 64] &= ~bit;
    sum_update(s, i / 64);
}

/* The nearest freemap word at or after w (at or before, backwards) with a
 * node with room, from the summary; SIZE_MAX when there is none. */
static inline size_t word_from(const struct sched *s, size_t w, int backwards)
{
    size_t words = (s->nt.nnodes + 63) / 64;
    if (w >= words)
        return backwards && w != SIZE_MAX ? word_from(s, words - 1, 1) : SIZE_MAX;
    size_t sw = w / 64;
    uint64_t bits = s->nt.freesum[sw];
    if (!backwards) {
        bits &= ~(uint64_t)0 << (w % 64);
        while (!bits) {
            if (++sw >= (words + 63) / 64)
                return SIZE_MAX;
            bits = s->nt.freesum[sw];
        }
        return sw * 64 + (size_t)__builtin_ctzll(bits);
    }
    bits &= ~(uint64_t)0 >> (63 - w % 64);
    while (!bits) {
        if (sw-- == 0)
            return SIZE_MAX;
        bits = s->nt.freesum[sw];
    }
    return sw * 64 + 63 - (size_t)__builtin_clzll(bits);
}

void alloc_node_changed(struct sched *s, size_t i)
{
    size_t need = ((s->nt.nnodes + 63) / 64 + 63) / 64;
    if (need > s->nt.freesum_words) { /* the node table grew */
        s->nt.freesum = xrealloc(s->nt.freesum, need * sizeof *s->nt.freesum);
        memset(s->nt.freesum + s->nt.freesum_words, 0,
               (need - s->nt.freesum_words) * sizeof *s->nt.freesum);
        s->nt.freesum_words = need;
    }
    const struct node *n = &s->nt.nodes[i];
    s->nt.node_cap[i] = n->state == NODE_UP ? n->procs : 0;
    s->nt.node_mem_cap[i] = n->state == NODE_UP ? n->mem : 0;
    if (s->nt.node_cap[i] > s->nt.maxcap)
        s->nt.maxcap = s->nt.node_cap[i];
    set_free_bit(s, i);
}

/* Next node at or after i with free processors, or nnodes. */
static size_t next_free(const struct sched *s, size_t i)
{
    size_t words = (s->nt.nnodes + 63) / 64;
    size_t w = i / 64;
    if (w >= words)
        return s->nt.nnodes;
    uint64_t bits = s->nt.freemap[w] & (~(uint64_t)0 << (i % 64));
    while (!bits) {
        if (++w >= words)
            return s->nt.nnodes;
        bits = s->nt.freemap[w];
    }
    size_t found = w * 64 + (size_t)__builtin_ctzll(bits);
    return found < s->nt.nnodes ? found : s->nt.nnodes;
}

/* Under AddressSanitizer every slot array is its own malloc, so that a
 * stale pointer to an ended job's slots is still caught (util/pool.c does
 * the same for the jobs). */
#if defined(__SANITIZE_ADDRESS__)
#define SLOTS_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOTS_MALLOC 1
#endif
#endif

/* An ended job's slot array is kept for the next start when it has room
 * for this many slots (sched_nodes.slot_spare): nearly every job of a
 * trace needs fewer. */
#define SLOTS_SPARE_CAP 8

/* Room in j's slots for one more (*cap is j->slots_cap): a kept array
 * first, else a new or grown one. */
static void slots_grow(struct sched *s, struct job *j, size_t *cap)
{
    if (j->nslots < *cap)
        return;
    if (!j->slots && s->nt.nslot_spare) {
        j->slots = s->nt.slot_spare[--s->nt.nslot_spare];
        *cap = SLOTS_SPARE_CAP;
        return;
    }
    j->slots = xgrow(j->slots, cap, j->nslots + 1, sizeof *j->slots);
}

/* j gives up its slots: the array is kept for a later start when it is
 * one of ours with room enough (its slots_cap), else freed. */
static void slots_drop(struct sched *s, struct job *j)
{
#ifndef SLOTS_MALLOC
    if (j->slots && j->slots_cap >= SLOTS_SPARE_CAP) {
        s->nt.slot_spare = xgrow(s->nt.slot_spare, &s->nt.capslot_spare, s->nt.nslot_spare + 1,
                                 sizeof *s->nt.slot_spare);
        s->nt.slot_spare[s->nt.nslot_spare++] = j->slots;
        j->slots = NULL;
    }
#endif
    if (j->slots) /* (nearly every array is kept: no call of free) */
        free(j->slots);
    j->slots = NULL;
    j->nslots = 0;
    j->slots_cap = 0;
}

/* Record `procs` and `mem` on node i for j, extending the last run when it
 * can (forwards, or backwards for LASTAVAILABLE's walk). */
static void add_slot(struct sched *s, struct job *j, size_t *cap, size_t i, unsigned procs,
                     unsigned mem)
{
    struct job_slot *last = j->nslots ? &j->slots[j->nslots - 1] : NULL;
    int same = last && last->procs == procs && last->mem == mem;
    if (same && last->node + last->nnodes == i) {
        last->nnodes++;
        return;
    }
    if (same && last->node == i + 1) {
        last->node--;
        last->nnodes++;
        return;
    }
    slots_grow(s, j, cap);
    j->slots[j->nslots++] = (struct job_slot){(unsigned)i, 1, procs, mem};
}

/* Slots are kept in node order (job.h); walks in another order sort them. */
static int slot_cmp(const void *a, const void *b)
{
    const struct job_slot *x = a, *y = b;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Slots in the reverse of node order (a backwards walk's), in one pass. */
static void reverse_slots(struct job *j)
{
    for (size_t a = 0, b = j->nslots - 1; a < b; a++, b--) {
        struct job_slot t = j->slots[a];
        j->slots[a] = j->slots[b];
        j->slots[b] = t;
    }
}

static void sort_many(struct job *j)
{
    size_t n = j->nslots, up = 1, down = 1;
    for (size_t k = 1; k < n; k++) {
        up &= j->slots[k].node > j->slots[k - 1].node;
        down &= j->slots[k].node < j->slots[k - 1].node;
    }
    if (up)
        return;
    if (down) { /* LASTAVAILABLE's walk */
        reverse_slots(j);
        return;
    }
    qsort(j->slots, n, sizeof *j->slots, slot_cmp);
}

/* (Most jobs hold one slot: no call for them.) */
static inline void sort_slots(struct job *j)
{
    if (j->nslots > 1)
        sort_many(j);
}

static void charge(struct sched *s, struct job *j, long a, long b);

/* The nodes j's slots hold (alloc_job counts them only for a job with a
 * node limit). */
static size_t slot_nodes(const struct job *j)
{
    size_t n = 0;
    for (size_t k = 0; k < j->nslots; k++)
        n += j->slots[k].nnodes;
    return n;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Processors of node i job j may take now (before node access rules):
 * what no job holds, less what reservations that refuse j keep for their
 * own jobs over [now, now + walltime). */
static long node_room(struct sched *s, const struct job *j, size_t i, long now)
{
    long room = s->nt.node_cap[i] - s->nt.node_used[i];
    if (room <= 0 || !s->pl.multi)
        return room;
    for (size_t e = s->pl.node_rv_off[i]; e < s->pl.node_rv_off[i + 1] && room > 0; e++) {
        const struct resv *r = s->pl.node_rv[e].r;
        const struct resv_node *rn = &r->nodes[s->pl.node_rv[e].k];
        if (r->start >= now + j->walltime || r->end <= now)
            continue;
        if (resv_access(s, r, j, now) == ACL_NONE)
            room -= (long)rn->procs - (long)rn->used;
    }
    return room;
}

/* At most k tasks of j, as node i's free memory holds them (k when the job
 * asks for no memory or the node's memory is not known). */
static unsigned mem_tasks(const struct sched *s, const struct job *j, size_t i, unsigned k)
{
    long cap = s->nt.node_mem_cap[i];
    if (cap <= 0 || !job_wants_mem(j))
        return k;
    long room = cap - s->nt.node_mem_used[i];
    long per_node = j->mem_per_node == JOB_MEM_WHOLE ? cap : j->mem_per_node;
    if (room < per_node + j->mem_per_task)
        return 0; /* not even one task (a whole node's memory: none used) */
    if (j->mem_per_task > 0) {
        long m = (room - per_node) / j->mem_per_task;
        if (m < (long)k)
            k = (unsigned)m;
    }
    return k;
}

/* An exclusive job: tasks of j on node i, were it wholly free and no job
 * on it, at most left (*procs: the whole node). */
static unsigned node_tasks_excl(struct sched *s, const struct job *j, size_t i, long now,
                                unsigned left, unsigned *procs)
{
    if (s->nt.node_jobs[i] || node_room(s, j, i, now) < s->nt.node_cap[i])
        return 0;
    unsigned k = (unsigned)s->nt.node_cap[i] / (unsigned)j->procs_per_task;
    k = k < left ? k : left;
    *procs = (unsigned)s->nt.node_cap[i];
    return k;
}

/* Tasks of j node i could take, at most left, and the processors they
 * occupy (*procs: the whole node under exclusive access). */
static unsigned node_tasks_any(struct sched *s, const struct job *j, size_t i, long now,
                               unsigned left, unsigned *procs)
{
    if (s->nt.node_excl[i])
        return 0; /* an exclusive job's node */
    if (j->exclusive)
        return node_tasks_excl(s, j, i, now, left, procs);
    long room = node_room(s, j, i, now);
    unsigned ppt = (unsigned)j->procs_per_task, k;
    if (room < (long)ppt)
        return 0;
    switch (s->pol.naccess) {
    case NACCESS_SINGLEJOB:
    case NACCESS_SINGLETASK:
        if (s->nt.node_jobs[i] || room < s->nt.node_cap[i])
            return 0;
        k = s->pol.naccess == NACCESS_SINGLETASK ? 1 : (unsigned)room / ppt;
        k = k < left ? k : left;
        *procs = (unsigned)s->nt.node_cap[i];
        return k;
    case NACCESS_SINGLEUSER:
        if (s->nt.node_jobs[i] && s->nt.node_user[i] != j->user)
            return 0;
        /* fall through */
    default:
        k = (unsigned)room / ppt;
        k = k < left ? k : left;
        *procs = k * ppt;
        return k;
    }
}

/* Tasks of j node i takes, at most left, the processors they occupy
 * (*procs: the whole node under exclusive access) and their memory (*mem).
 * A job with tasks per node takes exactly that many on a node, or none. */
static unsigned node_tasks(struct sched *s, const struct job *j, size_t i, long now, unsigned left,
                           unsigned *procs, unsigned *mem)
{
    unsigned k = node_tasks_any(s, j, i, now, left, procs);
    unsigned m = mem_tasks(s, j, i, k);
    if (m < k) {
        k = m;
        if (!j->exclusive && s->pol.naccess == NACCESS_SHARED)
            *procs = k * (unsigned)j->procs_per_task;
    }
    if (j->tpn && k != (unsigned)j->tpn) {
        if (k < (unsigned)j->tpn)
            return 0;
        if (s->pol.naccess != NACCESS_SINGLEJOB && !j->exclusive) /* exclusive: the whole node */
            *procs = (unsigned)j->tpn * (unsigned)j->procs_per_task;
        k = (unsigned)j->tpn;
    }
    *mem = (unsigned)job_node_mem(j, s->nt.node_mem_cap[i], k);
    return k;
}

static inline void take(struct sched *s, struct job *j, size_t *cap, size_t i, unsigned procs,
                        unsigned mem)
{
    add_slot(s, j, cap, i, procs, mem);
    s->nt.node_used[i] += (int)procs;
    if (mem) /* (the plain walk's jobs have none: no store per node for them) */
        s->nt.node_mem_used[i] += mem;
    if (j->exclusive)
        s->nt.node_excl[i] = 1;
    s->nt.node_jobs[i]++;
    s->nt.node_user[i] = j->user;
    set_free_bit(s, i);
}

/* Plain clusters: walk the nodes with room in table order (FIRSTAVAILABLE)
 * or backwards (LASTAVAILABLE), 64 full nodes skipped at a time. */
static size_t prev_free(const struct sched *s, size_t i)
{
    /* Node at or before i with free processors, or SIZE_MAX. */
    if (i >= s->nt.nnodes)
        i = s->nt.nnodes - 1;
    size_t w = i / 64;
    uint64_t bits =
        s->nt.freemap[w] & (i % 64 == 63 ? ~(uint64_t)0 : (((uint64_t)1 << (i % 64 + 1)) - 1));
    while (!bits) {
        if (w-- == 0)
            return SIZE_MAX;
        bits = s->nt.freemap[w];
    }
    return w * 64 + 63 - (size_t)__builtin_clzll(bits);
}

/* The common case — one region, shared nodes — kept tight: Curie's replay
 * makes 191 million processor allocations. A word of the free map at a
 * time, in table order or backwards: its nodes with room are taken in one
 * loop (find-first-set, no search per node) and the bits of those it fills
 * cleared together. */
static unsigned walk_plain(struct sched *s, struct job *j, size_t *cap, unsigned left,
                           int backwards)
{
    unsigned ppt = (unsigned)j->procs_per_task;
    size_t words = (s->nt.nnodes + 63) / 64;
    const int *ncap = s->nt.node_cap;
    int *used = s->nt.node_used, *njobs = s->nt.node_jobs;
    struct cred **user = s->nt.node_user;
    size_t w = word_from(s, backwards ? words - 1 : 0, backwards);
    for (; w != SIZE_MAX && left;
         w = left ? word_from(s, backwards ? w - 1 : w + 1, backwards) : w) {
        uint64_t bits = s->nt.freemap[w], full = 0;
        while (bits && left) {
            unsigned b =
                backwards ? 63 - (unsigned)__builtin_clzll(bits) : (unsigned)__builtin_ctzll(bits);
            uint64_t bit = (uint64_t)1 << b;
            size_t i = w * 64 + b;
            bits &= ~bit;
            unsigned room = (unsigned)(ncap[i] - used[i]);
            unsigned k = ppt == 1 ? room : room / ppt;
            if (k > left)
                k = left;
            if (!k)
                continue;
            used[i] += (int)(k * ppt);
            njobs[i]++;
            user[i] = j->user;
            left -= k;
            if (used[i] >= ncap[i])
                full |= bit;
            add_slot(s, j, cap, i, k * ppt, 0);
        }
        s->nt.freemap[w] &= ~full;
        sum_taken(s, w);
    }
    return left;
}

/*
 * Nodes a task of one processor each (take_run), or give back processors
 * and a job (give_run), run by run. At -O2 GCC vectorizes a loop only when
 * its trip count is a known multiple of the vector's four ints: each run is
 * a body of a multiple of 4 nodes (four at a time) and a tail of at most 3.
 * The pointers are restrict: the arrays never overlap, and without it each
 * store made the loop read j->user and the other arrays again.
 */
static inline void take_nodes(int *restrict used, int *restrict njobs, struct cred **restrict user,
                              size_t n, struct cred *u)
{
    for (size_t i = 0; i < n; i++) {
        used[i]++;
        njobs[i]++;
        user[i] = u;
    }
}

/* Nodes [a, b) take a task of one processor each for user u. */
static void take_run(struct sched *s, size_t a, size_t b, struct cred *u)
{
    int *used = s->nt.node_used + a, *njobs = s->nt.node_jobs + a;
    struct cred **user = s->nt.node_user + a;
    size_t n = b - a, body = n & ~(size_t)3;
    take_nodes(used, njobs, user, body, u);
    take_nodes(used + body, njobs + body, user + body, n - body, u);
}

/* Whether one of n nodes is still full after giving back (its capacity
 * fell to 0 while the job ran); without branches (Curie gives back 191
 * million). */
static inline int give_nodes(int *restrict used, int *restrict njobs, const int *restrict ncap,
                             size_t n, int procs)
{
    int over = 0;
    for (size_t i = 0; i < n; i++) {
        int u = used[i] - procs;
        used[i] = u;
        /* Each node of a slot counted the job once when taken (take,
         * take_run), so it counts it still: no clamp at 0, whose max was
         * a third of Curie's giving back (t_freemap checks the counts). */
        njobs[i]--;
        over |= u >= ncap[i];
    }
    return over;
}

/* Nodes [a, b) give back `procs` processors and a job each; whether one is
 * still full. A node's user is left as it is: it is read only while the
 * node has jobs. */
static int give_run(struct sched *s, size_t a, size_t b, int procs)
{
    int *used = s->nt.node_used + a, *njobs = s->nt.node_jobs + a;
    const int *ncap = s->nt.node_cap + a;
    size_t n = b - a, body = n & ~(size_t)3;
    return give_nodes(used, njobs, ncap, body, procs) |
           give_nodes(used + body, njobs + body, ncap + body, n - body, procs);
}

/* Nodes [a, a + n) for j, one processor each: the last slot grows when the
 * run adjoins it (forwards, or backwards for LASTAVAILABLE's walk). */
static void add_run(struct sched *s, struct job *j, size_t *cap, size_t a, unsigned n)
{
    struct job_slot *last = j->nslots ? &j->slots[j->nslots - 1] : NULL;
    if (last && last->procs == 1 && last->mem == 0 && last->node + last->nnodes == a) {
        last->nnodes += n;
        return;
    }
    if (last && last->procs == 1 && last->mem == 0 && last->node == a + n) {
        last->node = (unsigned)a;
        last->nnodes += n;
        return;
    }
    slots_grow(s, j, cap);
    j->slots[j->nslots++] = (struct job_slot){(unsigned)a, n, 1, 0};
}

/* walk_plain where no node has more than one processor (CEA-Curie as
 * one-processor nodes) and a task needs one: a node with room is an empty
 * one, so each run of free bits in a word is taken whole (or the part still
 * needed) with no look at the nodes, one slot a run. */
static unsigned walk_single(struct sched *s, struct job *j, size_t *cap, unsigned left,
                            int backwards)
{
    size_t words = (s->nt.nnodes + 63) / 64;
    size_t w = word_from(s, backwards ? words - 1 : 0, backwards);
    for (; w != SIZE_MAX && left;
         w = left ? word_from(s, backwards ? w - 1 : w + 1, backwards) : w) {
        uint64_t bits = s->nt.freemap[w];
        while (bits && left) {
            unsigned lo, len;
            if (!backwards) { /* the lowest run of ones */
                lo = (unsigned)__builtin_ctzll(bits);
                uint64_t rest = ~(bits >> lo);
                len = rest ? (unsigned)__builtin_ctzll(rest) : 64 - lo;
                len = len < left ? len : left;
            } else { /* the highest run, its top part when more than needed */
                unsigned hi = 63 - (unsigned)__builtin_clzll(bits);
                uint64_t rest = ~(bits << (63 - hi));
                len = rest ? (unsigned)__builtin_clzll(rest) : hi + 1;
                len = len < left ? len : left;
                lo = hi + 1 - len;
            }
            uint64_t mask = (~(uint64_t)0 >> (64 - len)) << lo; /* 1 <= len <= 64 */
            bits &= ~mask;
            s->nt.freemap[w] &= ~mask;
            size_t a = w * 64 + lo;
            take_run(s, a, a + len, j->user);
            add_run(s, j, cap, a, len);
            left -= len;
        }
        sum_taken(s, w);
    }
    return left;
}

/* Table order over the free map, by placement level (lv: the level of each
 * region, NULL for one level): one walk takes the best level's nodes at
 * once and remembers the others' in order, then takes those level by
 * level — the nodes of the reservations a job should use first, before
 * unreserved ones, before those it should use last. */
static unsigned walk_free(struct sched *s, struct job *j, size_t *cap, long now, unsigned left,
                          int backwards, const unsigned char *lv)
{
    if (!s->nt.nnodes)
        return left;
    int best = 4; /* the best level any region offers */
    for (size_t g = 0; lv && g < s->pl.nregions; g++)
        best = lv[g] < best ? lv[g] : best;
    uint32_t *later[4] = {0};
    size_t n[4] = {0}, capl[4] = {0};
    size_t i = backwards ? prev_free(s, s->nt.nnodes - 1) : next_free(s, 0);
    while (left && i < s->nt.nnodes) {
        int level = lv ? lv[s->pl.node_region[i]] : 0;
        unsigned procs = 0, mem = 0, k = 0;
        if (level == (lv ? best : 0))
            k = node_tasks(s, j, i, now, left, &procs, &mem);
        else if (level < 4) {
            later[level] = xgrow(later[level], &capl[level], n[level] + 1, sizeof *later[level]);
            later[level][n[level]++] = (uint32_t)i;
        }
        if (k) {
            take(s, j, cap, i, procs, mem);
            left -= k;
        }
        i = backwards ? (i ? prev_free(s, i - 1) : SIZE_MAX) : next_free(s, i + 1);
    }
    for (int level = 0; level < 4; level++) {
        for (size_t x = 0; x < n[level] && left; x++) {
            unsigned procs = 0, mem = 0;
            unsigned k = node_tasks(s, j, later[level][x], now, left, &procs, &mem);
            if (k) {
                take(s, j, cap, later[level][x], procs, mem);
                left -= k;
            }
        }
        free(later[level]);
    }
    return left;
}

/* ---- NODEALLOCATIONPOLICY orders beyond table order ---- */

static const struct sched *cmp_s;

/* A node's PRIORITYF terms (digest §6.4). Dynamic terms describe the node
 * as it is now: moku has no load readings, so busy processors stand for
 * LOAD, and memory in use is not tracked (AMEM = CMEM). RESAFFINITY is the
 * job's affinity with the reservations there (1, 0, -1); PREF is 0, as
 * jobs cannot name preferred features yet. */
/* The terms that do not change with use (the others 0). */
static void static_vars(const struct node *n, double v[NPRIO_NVARS])
{
    memset(v, 0, NPRIO_NVARS * sizeof *v);
    v[NPRIO_CDISK] = (double)n->disk;
    v[NPRIO_CMEM] = (double)n->mem;
    v[NPRIO_CPROCS] = n->procs;
    v[NPRIO_CSWAP] = (double)n->swap;
    v[NPRIO_PRIORITY] = (double)n->priority;
    v[NPRIO_SPEED] = n->speed;
}

static void node_vars(const struct sched *s, size_t i, int level, double v[NPRIO_NVARS])
{
    const struct node *n = &s->nt.nodes[i];
    static_vars(n, v);
    v[NPRIO_ADISK] = (double)n->disk;
    v[NPRIO_AMEM] = (double)n->mem;
    v[NPRIO_ASWAP] = (double)n->swap;
    v[NPRIO_APROCS] = s->nt.node_cap[i] - s->nt.node_used[i];
    v[NPRIO_LOAD] = s->nt.node_used[i];
    v[NPRIO_JOBCOUNT] = s->nt.node_jobs[i];
    v[NPRIO_USAGE] = s->nt.node_cap[i] ? (double)s->nt.node_used[i] / s->nt.node_cap[i] : 0;
    v[NPRIO_RESAFFINITY] = level == 0 ? 1 : level == 3 ? -1 : 0;
}

/* The static order of NODEALLOCATIONPOLICY PRIORITY: the function with the
 * dynamic terms at zero (the default function is then NODECFG PRIORITY). */
static double node_static_priority(const struct node *n)
{
    if (!n->priof)
        return (double)n->priority;
    double v[NPRIO_NVARS];
    static_vars(n, v);
    return nprio_eval(n->priof, v);
}

static int cmp_node(size_t x, size_t y)
{
    const struct node *a = &cmp_s->nt.nodes[x], *b = &cmp_s->nt.nodes[y];
    switch (cmp_s->pol.nalloc) {
    case NALLOC_MINRESOURCE: /* least configured memory, then fewest processors */
        if (a->mem != b->mem)
            return a->mem < b->mem ? -1 : 1;
        if (a->procs != b->procs)
            return a->procs < b->procs ? -1 : 1;
        break;
    case NALLOC_FASTEST:
        if (a->speed != b->speed)
            return a->speed > b->speed ? -1 : 1;
        break;
    case NALLOC_MAXBALANCE: /* slowest first: groups of equal speed in order */
        if (a->speed != b->speed)
            return a->speed < b->speed ? -1 : 1;
        break;
    case NALLOC_PRIORITY: {
        double pa = node_static_priority(a), pb = node_static_priority(b);
        if (pa != pb)
            return pa > pb ? -1 : 1;
        break;
    }
    default:
        break;
    }
    return x < y ? -1 : x > y;
}

static int cmp_index(const void *a, const void *b)
{
    return cmp_node(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* The static order of the policy, computed when nodes change. */
static const uint32_t *node_order(struct sched *s)
{
    if (!s->nt.order_dirty && s->nt.node_order)
        return s->nt.node_order;
    s->nt.node_order = xrealloc(s->nt.node_order, (s->nt.nnodes + 1) * sizeof *s->nt.node_order);
    for (size_t i = 0; i < s->nt.nnodes; i++)
        s->nt.node_order[i] = (uint32_t)i;
    cmp_s = s;
    qsort(s->nt.node_order, s->nt.nnodes, sizeof *s->nt.node_order, cmp_index);
    s->nt.order_dirty = 0;
    return s->nt.node_order;
}

/* CPULOAD: most idle processors first (moku has no load readings of its
 * own; busy processors stand for the load). */
static int cmp_idle(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int fx = cmp_s->nt.node_cap[x] - cmp_s->nt.node_used[x],
        fy = cmp_s->nt.node_cap[y] - cmp_s->nt.node_used[y];
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* PRIORITY with a PRIORITYF that changes with use: the nodes with room,
 * best first, evaluated now (lv: the job's level per region, or NULL). */
static double *dyn_value;
static int cmp_dyn(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (dyn_value[x] != dyn_value[y])
        return dyn_value[x] > dyn_value[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static size_t ordered_dynamic(struct sched *s, const unsigned char *lv, uint32_t *out)
{
    size_t n = 0;
    dyn_value = xcalloc(s->nt.nnodes + 1, sizeof *dyn_value);
    for (size_t i = 0; i < s->nt.nnodes; i++) {
        if (s->nt.node_used[i] >= s->nt.node_cap[i])
            continue;
        double v[NPRIO_NVARS];
        node_vars(s, i, lv ? lv[s->pl.node_region[i]] : 2, v);
        dyn_value[i] = s->nt.nodes[i].priof ? nprio_eval(s->nt.nodes[i].priof, v)
                                            : (double)s->nt.nodes[i].priority;
        out[n++] = (uint32_t)i;
    }
    qsort(out, n, sizeof *out, cmp_dyn);
    free(dyn_value);
    dyn_value = NULL;
    return n;
}

/* Nodes in the policy's order, into out (nnodes entries); returns how many. */
static size_t ordered(struct sched *s, const unsigned char *lv, uint32_t *out)
{
    size_t n = 0;
    if (s->pol.nalloc == NALLOC_PRIORITY && s->nt.prio_dynamic)
        return ordered_dynamic(s, lv, out);
    if (s->pol.nalloc == NALLOC_CPULOAD) {
        for (size_t i = 0; i < s->nt.nnodes; i++)
            if (s->nt.node_used[i] < s->nt.node_cap[i])
                out[n++] = (uint32_t)i;
        cmp_s = s;
        qsort(out, n, sizeof *out, cmp_idle);
        return n;
    }
    const uint32_t *o = node_order(s);
    if (s->pol.nalloc == NALLOC_LASTAVAILABLE) {
        for (size_t i = s->nt.nnodes; i-- > 0;)
            out[n++] = o[i];
        return n;
    }
    memcpy(out, o, s->nt.nnodes * sizeof *out);
    return s->nt.nnodes;
}

/* MAXBALANCE: the slowest group of equal speed that holds every task, so
 * that a job runs on processors of one speed; [*from, *to) of order. */
static void balance_range(struct sched *s, const struct job *j, const uint32_t *order, size_t n,
                          long now, size_t *from, size_t *to)
{
    *from = 0;
    *to = n;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        unsigned long long tasks = 0;
        while (b < n && s->nt.nodes[order[b]].speed == s->nt.nodes[order[a]].speed) {
            unsigned procs, mem;
            tasks += node_tasks(s, j, order[b], now, (unsigned)j->tasks, &procs, &mem);
            b++;
        }
        if (tasks >= (unsigned long long)j->tasks) {
            *from = a;
            *to = b;
            return;
        }
        a = b;
    }
}

/* Level of each region for j (policy/plan.c): reserved resources it has
 * positive affinity with first, then neutral, unreserved, negative. */
static unsigned char *region_levels(struct sched *s, const struct job *j, long now)
{
    unsigned char *lv = xcalloc(s->pl.nregions + 1, 1);
    static const unsigned char of[] = {
        [ACL_POSITIVE] = 0, [ACL_NEUTRAL] = 1, [ACL_NONE] = 2, [ACL_NEGATIVE] = 3};
    /* A region whose counts leave j nothing is skipped whole: its nodes
     * with room are reserved for others (4: taken only when no region is
     * better, by a start that ignores the plan, runjob's). A region j cannot
     * use at all (features, partition) is never taken (5): runjob put a job
     * asking for a feature on nodes without it. */
    for (size_t g = 0; g < s->pl.nregions; g++)
        lv[g] = !plan_region_usable(s, j, g)          ? 5
                : plan_region_tasks(s, j, g, now) > 0 ? of[plan_region_access(s, j, g, now)]
                                                      : 4;
    return lv;
}

static unsigned walk_ordered(struct sched *s, struct job *j, size_t *cap, long now, unsigned left)
{
    uint32_t *order = xcalloc(s->nt.nnodes + 1, sizeof *order);
    unsigned char *lv = s->pl.multi ? region_levels(s, j, now) : NULL;
    size_t n = ordered(s, lv, order), from = 0, to = n;
    if (s->pol.nalloc == NALLOC_MAXBALANCE)
        balance_range(s, j, order, n, now, &from, &to);
    for (int level = 0; level < (lv ? 4 : 1) && left; level++)
        for (size_t pass = 0; pass < 2 && left; pass++) {
            /* MAXBALANCE: its chosen group, then the rest in order. */
            size_t a = pass ? 0 : from, b = pass ? n : to;
            for (size_t x = a; x < b && left; x++) {
                size_t i = order[x];
                if ((lv && lv[s->pl.node_region[i]] != level) || (pass && x >= from && x < to))
                    continue;
                unsigned procs = 0, mem = 0, k = node_tasks(s, j, i, now, left, &procs, &mem);
                if (k) {
                    take(s, j, cap, i, procs, mem);
                    left -= k;
                }
            }
        }
    free(lv);
    free(order);
    return left;
}

/* fill_in_order: the tasks of j over the nodes it was given, split as the
 * resource manager will split them (Slurm's cons_tres): in table order,
 * each node as many as it holds while every later node keeps one. The
 * nodes hold them all (they held them in the walk's split). */
static void refill(struct sched *s, struct job *j, long now)
{
    size_t n = slot_nodes(j);
    if (n < 2)
        return;
    uint32_t *nodes = xcalloc(n, sizeof *nodes);
    n = 0;
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++)
            nodes[n++] = j->slots[k].node + i;
    alloc_release(s, j);
    qsort(nodes, n, sizeof *nodes, cmp_u32);
    unsigned left = (unsigned)j->tasks;
    for (size_t x = 0; x < n && left; x++) {
        unsigned keep = (unsigned)(n - x - 1), procs = 0, mem = 0;
        unsigned k = node_tasks(s, j, nodes[x], now, left > keep ? left - keep : 1, &procs, &mem);
        if (k) {
            take(s, j, &j->slots_cap, nodes[x], procs, mem);
            left -= k;
        }
    }
    free(nodes);
}

/* A job with a host list: its count on each of its hosts, or nothing.
 * The nodes must suit it as any would (up, its features and partition). */
static int alloc_hosts(struct sched *s, struct job *j, long now)
{
    for (size_t k = 0; k < j->nhosts; k++) {
        size_t i = j->hosts[k].node;
        unsigned want = j->hosts[k].tasks, procs = 0, mem = 0;
        if (i >= s->nt.nnodes || !s->pl.multi || !plan_region_usable(s, j, s->pl.node_region[i]) ||
            node_tasks(s, j, i, now, want, &procs, &mem) != want) {
            alloc_release(s, j); /* no side effects on failure */
            return -1;
        }
        take(s, j, &j->slots_cap, i, procs, mem);
    }
    sort_slots(j);
    charge(s, j, now, now + j->walltime);
    return 0;
}

int alloc_job(struct sched *s, struct job *j, long now)
{
    size_t *cap = &j->slots_cap;
    unsigned left = (unsigned)j->tasks;
    j->slots = NULL;
    j->nslots = 0;
    j->slots_cap = 0;
    if (job_has_hostlist(j))
        return alloc_hosts(s, j, now);
    int table = s->pol.nalloc == NALLOC_FIRSTAVAILABLE || s->pol.nalloc == NALLOC_LASTAVAILABLE;
    int in_order = 0; /* the slots are known to be in node order */
    if (!s->pl.multi && !plan_region_usable(s, j, 0))
        return -1; /* one region, and j may not use it (a feature no node has) */
    if (table && !s->pl.multi && s->pol.naccess == NACCESS_SHARED && s->nt.nnodes && !j->tpn &&
        !j->exclusive && !job_wants_mem(j)) {
        int back = s->pol.nalloc == NALLOC_LASTAVAILABLE;
        left = s->nt.maxcap <= 1 && j->procs_per_task == 1 ? walk_single(s, j, cap, left, back)
                                                           : walk_plain(s, j, cap, left, back);
        /* These walks meet the nodes in table order or its reverse and
         * only ever grow the last slot or add one past it: their slots are
         * in node order, or reversed, known without a look (refill below
         * takes in node order too). */
        if (back && j->nslots > 1)
            reverse_slots(j);
        in_order = 1;
    } else if (table) {
        /* Table order: the free map skips full nodes 64 at a time. */
        int back = s->pol.nalloc == NALLOC_LASTAVAILABLE;
        unsigned char *lv = s->pl.multi ? region_levels(s, j, now) : NULL;
        left = walk_free(s, j, cap, now, left, back, lv);
        free(lv);
    } else {
        left = walk_ordered(s, j, cap, now, left);
    }
    if (!left && s->pol.fill_in_order && !j->tpn && !j->exclusive &&
        s->pol.naccess == NACCESS_SHARED)
        refill(s, j, now);
    if (left || (j->max_nodes && slot_nodes(j) > (size_t)j->max_nodes)) {
        alloc_release(s, j); /* no side effects on failure */
        return -1;
    }
    if (!in_order)
        sort_slots(j);
    if (s->pl.multi)
        charge(s, j, now, now + j->walltime);
    return 0;
}

int alloc_exact(struct sched *s, struct job *j, const struct job_slot *slots, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (slots[k].nnodes == 0 || (size_t)slots[k].node + slots[k].nnodes > s->nt.nnodes)
            return -1;
    j->slots = NULL;
    j->nslots = 0;
    j->slots_cap = 0;
    for (size_t k = 0; k < n; k++)
        for (unsigned i = slots[k].node; i < slots[k].node + slots[k].nnodes; i++) {
            /* A job found running is where it is, even on a node that has
             * shrunk since: used may exceed cap until it ends. */
            take(s, j, &j->slots_cap, i, slots[k].procs, slots[k].mem);
        }
    return 0;
}

/* Charge j's processors to the reservations that admit it on its nodes, as
 * far as their reserved processors go: the reserved processors a job uses
 * are no longer kept from others (node_room). Window [a, b). */
static void charge(struct sched *s, struct job *j, long a, long b)
{
    size_t cap = 0;
    j->ncharges = 0;
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = j->slots[k].node; i < j->slots[k].node + j->slots[k].nnodes; i++) {
            unsigned left = j->slots[k].procs;
            for (size_t e = s->pl.node_rv_off[i]; e < s->pl.node_rv_off[i + 1] && left; e++) {
                struct resv *r = s->pl.node_rv[e].r;
                struct resv_node *rn = &r->nodes[s->pl.node_rv[e].k];
                if (r->start >= b || r->end <= a || rn->used >= rn->procs ||
                    resv_access(s, r, j, a) == ACL_NONE)
                    continue;
                unsigned c = rn->procs - rn->used < left ? rn->procs - rn->used : left;
                rn->used += c;
                left -= c;
                j->charges = xgrow(j->charges, &cap, j->ncharges + 1, sizeof *j->charges);
                j->charges[j->ncharges++] = (struct resv_charge){r, s->pl.node_rv[e].k, c};
            }
        }
}

void alloc_charge(struct sched *s, struct job *j, long now)
{
    free(j->charges);
    j->charges = NULL;
    j->ncharges = 0;
    long end = j->planned_end > now ? j->planned_end : now + 1;
    charge(s, j, now, end);
}

static void uncharge(struct job *j)
{
    for (size_t c = 0; c < j->ncharges; c++) {
        struct resv_node *rn = &j->charges[c].r->nodes[j->charges[c].k];
        rn->used = rn->used > j->charges[c].procs ? rn->used - j->charges[c].procs : 0;
    }
    if (j->charges) /* nearly every job has none: no call */
        free(j->charges);
    j->charges = NULL;
    j->ncharges = 0;
}

/* Mark nodes [from, to) as having room, a word at a time. */
static void set_free_range(struct sched *s, size_t from, size_t to)
{
    while (from < to) {
        size_t w = from / 64, hi = to - w * 64 < 64 ? to - w * 64 : 64; /* hi > from % 64 */
        s->nt.freemap[w] |= (~(uint64_t)0 >> (64 - hi)) & (~(uint64_t)0 << from % 64);
        s->nt.freesum[w / 64] |= (uint64_t)1 << (w % 64);
        from = w * 64 + hi;
    }
}

void alloc_release(struct sched *s, struct job *j)
{
    for (size_t k = 0; k < j->nslots; k++) {
        const struct job_slot *sl = &j->slots[k];
        size_t end = (size_t)sl->node + sl->nnodes;
        if (sl->mem || j->exclusive)
            for (size_t i = sl->node; i < end; i++) {
                s->nt.node_mem_used[i] -= sl->mem;
                if (j->exclusive)
                    s->nt.node_excl[i] = 0;
            }
        /* Each of these nodes just gave back processors: all have room,
         * unless one lost its processors while the job ran (down, drained:
         * capacity 0), which must stay out of the map. */
        if (!give_run(s, sl->node, end, (int)sl->procs))
            set_free_range(s, sl->node, end);
        else
            for (size_t i = sl->node; i < end; i++)
                set_free_bit(s, i);
    }
    slots_drop(s, j);
    uncharge(j);
}
