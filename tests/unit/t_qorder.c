/*
 * qorder: the queue placed lazily, group by group through a heap, is the
 * queue sorted whole (every priority computed, prio_cmp), entry for entry,
 * however far it is placed; what is left loose is the rest of the jobs, and
 * qorder_tighten puts it in order; a look (qorder_look) sees the jobs in
 * priority order and leaves the queue as it was. Fixed-seed random queues: credentials
 * from a small pool with random PRIORITY, random weights and caps (ties at
 * a cap or the floor of 1), queue times moved away from submission, system
 * priorities, against the simple model (prio_start and a sort).
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "engine/engine.h"
#include "policy/prio.h"
#include "policy/qgroup.h"
#include "policy/qorder.h"
#include "test.h"
#include "util/mem.h"

#define NJOBS 120

static const char *const users[] = {"u0", "u1", "u2", "u3", "u4", "u5"};
static const char *const groups[] = {"g0", "g1", "g2"};

static int by_address(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    return x < y ? -1 : x > y;
}

static void random_policy(struct sched_policy *p)
{
    sched_policy_default(p);
    p->prio.cweight[PRIO_SERV] = rand() % 3;
    p->prio.fweight[PF_QUEUETIME] = rand() % 4 - 1;
    p->prio.fcap[PF_QUEUETIME] = rand() % 3 ? 0 : rand() % 300;
    p->prio.cweight[PRIO_CRED] = rand() % 3;
    p->prio.fweight[PF_USER] = rand() % 3;
    p->prio.fweight[PF_GROUP] = rand() % 3 - 1;
    p->prio.enable_neg = rand() % 2;
}

/* Submit the queue, its users and groups the first nuser and ngroup of
 * the pools; queue times and system priorities set by hand. */
static void fill(struct sched *s, long *latest, int nuser, int ngroup)
{
    char name[16];
    long t = 1000;
    for (int i = 0; i < NJOBS; i++) {
        snprintf(name, sizeof name, "%d", i + 1);
        t += rand() % 4 ? rand() % 600 : 0; /* ties in submission time too */
        struct job_spec spec = {.name = name,
                                .tasks = 1,
                                .procs_per_task = 1,
                                .walltime = 3600,
                                .submit = t,
                                .user = users[rand() % nuser],
                                .group = groups[rand() % ngroup]};
        struct err err = {0};
        struct job *j = sched_submit(s, &spec, &err);
        if (!j)
            fprintf(stderr, "%s\n", err.msg);
        CHECK(j != NULL);
        j->qtime_start = rand() % 8 ? t : t - rand() % 5000;
        if (rand() % 30 == 0) {
            j->sysprio_mode = SYSPRIO_RELATIVE;
            j->sysprio = rand() % 200 - 100;
        }
        j->user->priority = rand() % 7 - 3;
    }
    *latest = t;
}

/* A scheduler of random priority weights on one 4-processor node, its
 * queue filled (fill) from nuser users and ngroup groups; *latest: the
 * last submission. */
static struct sched *random_sched_of(long *latest, int nuser, int ngroup)
{
    struct sched_policy pol;
    random_policy(&pol);
    struct sched *s = sched_create(&pol, NULL);
    struct node_spec node = {.name = "n0", .procs = 4, .state = NODE_UP};
    CHECK(sched_add_node(s, &node, NULL) == 0);
    fill(s, latest, nuser, ngroup);
    return s;
}

static struct sched *random_sched(long *latest)
{
    return random_sched_of(latest, 6, 3);
}

/* The queue with each credential group's jobs one run, in queue order
 * within it (qorder's split takes such a queue as it is). */
static int by_creds(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    if (x->user != y->user)
        return x->user < y->user ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The queue as submitted, every third one with each group one run. */
static void as_submitted(struct sched *s, int round)
{
    if (round % 3 == 0) /* every group one run: no scatter */
        qsort(s->q.queue, s->q.qlen, sizeof *s->q.queue, by_creds);
}

/* A job's place in queue_time_first's order: its queue time, ties at random. */
static int by_key(const void *a, const void *b)
{
    const long *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The queue in an order a pass leaves (not submission order): shuffled, or
 * in queue-time order with ties (and so submissions) at random — split's
 * join sees queue times tie out of submission order, and queue times in
 * order where submissions are not (a queue time moved back). */
static void out_of_submission(struct sched *s, int round)
{
    size_t n = s->q.qlen;
    long key[NJOBS][2];
    for (size_t i = 0; i < n; i++) {
        key[i][0] = round % 2 ? s->q.queue[i]->qtime_start * NJOBS + rand() % NJOBS : rand();
        key[i][1] = (long)i;
    }
    qsort(key, n, sizeof *key, by_key);
    struct job *v[NJOBS];
    for (size_t i = 0; i < n; i++)
        v[i] = s->q.queue[key[i][1]];
    memcpy(s->q.queue, v, n * sizeof *v);
}

/* The queue of out_of_submission or as_submitted (round by round) with
 * holes, as started or cancelled jobs leave them: leading ones behind
 * qhead, others anywhere (a pass compacts the queue as it splits it). */
static void with_holes(struct sched *s, int round)
{
    if (round % 2)
        out_of_submission(s, round / 2);
    else
        as_submitted(s, round / 2);
    size_t n = s->q.qlen, lead = (size_t)(rand() % 4), m = 0;
    struct job *v[NJOBS];
    memcpy(v, s->q.queue, n * sizeof *v);
    s->q.queue = xgrow(s->q.queue, &s->q.qcap, 3 * n + lead, sizeof *s->q.queue);
    for (size_t i = 0; i < lead; i++)
        s->q.queue[m++] = NULL;
    for (size_t i = 0; i < n; i++) {
        for (int h = rand() % 3 ? 0 : 1 + rand() % 2; h > 0; h--)
            s->q.queue[m++] = NULL;
        s->q.queue[m++] = v[i];
    }
    s->q.qhead = lead > 0 ? (size_t)rand() % (lead + 1) : 0;
    s->q.qlen = m;
}

static void random_queues(unsigned seed, void (*arrange)(struct sched *, int))
{
    srand(seed);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s = random_sched(&latest);
        long now = latest + rand() % 20000;
        struct prio_env env;
        sched_prio_env(s, &env);
        arrange(s, round);
        struct job *model[NJOBS], *rest[NJOBS];
        size_t n = 0;
        for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
            if (!s->q.queue[i])
                continue; /* a hole: the pass compacts the queue */
            CHECK(n < NJOBS);
            model[n] = s->q.queue[i];
            model[n]->priority = prio_start(&s->pol.prio, &env, model[n], now, NULL);
            n++;
        }
        CHECK_EQ(n, (size_t)NJOBS);
        qsort(model, n, sizeof *model, prio_cmp);
        double want[NJOBS];
        for (size_t i = 0; i < n; i++)
            want[i] = model[i]->priority;
        size_t k = (size_t)rand() % (n + 1); /* how far a scan reads */
        qorder_start(s, now);
        CHECK(s->q.placing);
        CHECK(s->q.qhead == 0 && s->q.qlen == n); /* compacted */
        if (k)
            qorder_place(s, k - 1);
        qorder_finish(s);
        CHECK(!s->q.placing);
        CHECK_EQ(s->q.loose, k < n);
        for (size_t i = 0; i < k; i++) {
            CHECK(s->q.queue[i] == model[i]);
            CHECK(s->q.queue[i]->priority == want[i]);
        }
        memcpy(rest, s->q.queue + k, (n - k) * sizeof *rest);
        qsort(rest, n - k, sizeof *rest, by_address);
        qsort(model + k, n - k, sizeof *model, by_address);
        for (size_t i = k; i < n; i++)
            CHECK(rest[i - k] == model[i]);
        qorder_tighten(s, now);
        CHECK(!s->q.loose);
        for (size_t i = 0; i < n; i++)
            CHECK(s->q.queue[i]->priority ==
                  prio_start(&s->pol.prio, &env, s->q.queue[i], now, NULL));
        for (size_t i = 1; i < n; i++)
            CHECK(prio_cmp(&s->q.queue[i - 1], &s->q.queue[i]) < 0);
        sched_destroy(s);
    }
}

static void test_random_queues(void)
{
    random_queues(31, as_submitted);
}

static void test_out_of_submission(void)
{
    random_queues(37, out_of_submission);
}

static void test_holes(void)
{
    random_queues(41, with_holes);
}

/* Placed one entry at a time, as a scan asks (qorder_place's inline
 * case: the top group's next job, compared with the heap's children only),
 * now and then a few entries at once: the model's sort entry for entry,
 * priorities too, however far it goes. Few credential groups (1 to 6),
 * each with many jobs, so that a group's next job often stays on top,
 * sometimes sinks below one child or the other, and groups run out. */
static void test_one_by_one(void)
{
    srand(47);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s = random_sched_of(&latest, 1 + round % 3, 1 + round / 3 % 2);
        long now = latest + rand() % 20000;
        struct prio_env env;
        sched_prio_env(s, &env);
        for (size_t i = 0; round % 5 && i < s->q.qlen; i++)
            s->q.queue[i]->qtime_start = s->q.queue[i]->submit; /* groups not split up */
        if (round % 2)
            out_of_submission(s, round / 2);
        struct job *model[NJOBS];
        size_t n = s->q.qlen;
        for (size_t i = 0; i < n; i++) {
            model[i] = s->q.queue[i];
            model[i]->priority = prio_start(&s->pol.prio, &env, model[i], now, NULL);
        }
        qsort(model, n, sizeof *model, prio_cmp);
        double want[NJOBS];
        for (size_t i = 0; i < n; i++)
            want[i] = model[i]->priority;
        size_t k = n - (size_t)rand() % (n / 4); /* how far a scan reads */
        qorder_start(s, now);
        CHECK_EQ(s->q.qlen, n);
        for (size_t i = 0; i < k; i = s->q.qplaced)
            qorder_place(s, rand() % 8 ? i : i + (size_t)rand() % (k - i)); /* at most k - 1 */
        CHECK_EQ(s->q.qplaced, k);
        qorder_finish(s);
        for (size_t i = 0; i < k; i++) {
            CHECK(s->q.queue[i] == model[i]);
            CHECK(s->q.queue[i]->priority == want[i]);
        }
        sched_destroy(s);
    }
}

/* Holes where jobs left the queue between two passes (started, gone):
 * none, anywhere, or only at its head (then skipped by qhead, as
 * compact_queue does before a pass). */
static void leave_some(struct sched *s, int round)
{
    size_t lead = (size_t)rand() % (s->q.qlen / 4 + 1);
    for (size_t i = 0; round % 3 && i < s->q.qlen; i++)
        if (round % 3 == 1 ? rand() % 8 == 0 : i < lead) {
            s->q.queue[i] = NULL;
            s->q.qidle--;
        }
    while (s->q.qhead < s->q.qlen && !s->q.queue[s->q.qhead])
        s->q.qhead++;
}

/* A second pass over what a first left: the first placed k jobs, one
 * entry at a time as a scan asks or several at once, and left the rest
 * loose; the second's split takes both, the runs of one group the first
 * placed one after the other and its loose tail, entry by entry as they
 * are. Between them jobs leave (leave_some: holes, in the tail too), new
 * ones are submitted after it, and now and then a waiting job's system
 * priority changes (the entries dropped, as iter_run does on elig_all).
 * The second pass, placed whole, is the model's sort at its time. Few
 * credential groups or many. */
/* A one-processor job of a random user and group, submitted up to ten
 * minutes after *latest (moved on to its submit time). */
static void submit_later(struct sched *s, const char *name, long *latest)
{
    *latest += rand() % 600;
    struct job_spec spec = {.name = name,
                            .tasks = 1,
                            .procs_per_task = 1,
                            .walltime = 3600,
                            .submit = *latest,
                            .user = users[rand() % 6],
                            .group = groups[rand() % 3]};
    CHECK(sched_submit(s, &spec, NULL) != NULL);
}

static void test_kept_tail(void)
{
    srand(43);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s =
            round % 4 ? random_sched(&latest) : random_sched_of(&latest, 1 + round / 4 % 3, 2);
        long now = latest + rand() % 20000;
        if (round % 2)
            as_submitted(s, round / 2);
        else
            out_of_submission(s, round / 2);
        qorder_start(s, now);
        size_t n = s->q.qlen, k = (size_t)rand() % (n + 1);
        for (size_t i = 0; i < k; i = s->q.qplaced)
            qorder_place(s, rand() % 4 ? i : k - 1);
        qorder_finish(s);
        leave_some(s, round / 2);
        char name[16];
        for (int i = 0, more = rand() % 10; i < more; i++) {
            snprintf(name, sizeof name, "new%d", i);
            submit_later(s, name, &latest);
        }
        s->el.elig_all = 0;
        if (rand() % 4 == 0) {
            struct job *j = s->q.queue[s->q.qlen - 1 - (size_t)rand() % (s->q.qlen / 2)];
            if (j)
                CHECK(sched_set_sysprio(s, j, SYSPRIO_RELATIVE, rand() % 200, NULL) == 0);
        }
        if (s->el.elig_all)
            qorder_drop_tail(s);
        now += rand() % 20000;
        struct prio_env env;
        sched_prio_env(s, &env);
        struct job *model[2 * NJOBS];
        size_t m = 0;
        for (size_t i = s->q.qhead; i < s->q.qlen; i++)
            if (s->q.queue[i]) {
                model[m] = s->q.queue[i];
                model[m]->priority = prio_start(&s->pol.prio, &env, model[m], now, NULL);
                m++;
            }
        qsort(model, m, sizeof *model, prio_cmp);
        double want[2 * NJOBS];
        for (size_t i = 0; i < m; i++)
            want[i] = model[i]->priority;
        s->q.loose = 0; /* order_queue's, before it places the queue */
        qorder_start(s, now);
        CHECK_EQ(s->q.qlen, m);
        if (m)
            qorder_place(s, m - 1);
        qorder_finish(s);
        CHECK(!s->q.loose);
        for (size_t i = 0; i < m; i++) {
            CHECK(s->q.queue[i] == model[i]);
            CHECK(s->q.queue[i]->priority == want[i]);
        }
        sched_destroy(s);
    }
}

/* A chain of passes over one queue, each over what the last left (its
 * groups' numbers, which the next split maps to its own), each placing a
 * random part and leaving the rest loose, jobs leaving and new ones
 * submitted between them: every pass's placed entries are the model's
 * sort at its time, entry for entry. */
static void test_kept_tail_chain(void)
{
    srand(47);
    for (int round = 0; round < 100; round++) {
        long latest;
        struct sched *s =
            round % 2 ? random_sched(&latest) : random_sched_of(&latest, 1 + round / 2 % 4, 3);
        long now = latest + rand() % 20000;
        as_submitted(s, round);
        for (int pass = 0; pass < 8; pass++) {
            struct prio_env env;
            sched_prio_env(s, &env);
            struct job *model[2 * NJOBS];
            size_t m = 0;
            for (size_t i = s->q.qhead; i < s->q.qlen; i++)
                if (s->q.queue[i]) {
                    CHECK(m < 2 * NJOBS);
                    model[m] = s->q.queue[i];
                    model[m]->priority = prio_start(&s->pol.prio, &env, model[m], now, NULL);
                    m++;
                }
            qsort(model, m, sizeof *model, prio_cmp);
            double want[2 * NJOBS];
            for (size_t i = 0; i < m; i++)
                want[i] = model[i]->priority;
            s->q.loose = 0;
            qorder_start(s, now);
            CHECK_EQ(s->q.qlen, m);
            size_t k = (size_t)rand() % (m + 1);
            for (size_t i = 0; i < k; i = s->q.qplaced)
                qorder_place(s, rand() % 4 ? i : k - 1);
            qorder_finish(s);
            for (size_t i = 0; i < k; i++) {
                CHECK(s->q.queue[i] == model[i]);
                CHECK(s->q.queue[i]->priority == want[i]);
            }
            leave_some(s, pass + round);
            char name[32];
            for (int i = 0, more = rand() % 8; i < more && s->q.qlen < NJOBS; i++) {
                snprintf(name, sizeof name, "p%dn%d", pass, i);
                submit_later(s, name, &latest);
            }
            now += rand() % 20000;
        }
        sched_destroy(s);
    }
}

/* A look (qorder_look) at a queue in any order with stale priorities: the
 * jobs in the order of their priorities at the look's time, and the queue
 * and its stored priorities as they were. */
static void test_look(void)
{
    srand(4163);
    for (int round = 0; round < 200; round++) {
        long latest;
        struct sched *s = random_sched(&latest);
        long now = latest + rand() % 20000;
        struct prio_env env;
        sched_prio_env(s, &env);
        size_t n = s->q.qlen;
        struct job *model[NJOBS], *before[NJOBS];
        double stale[NJOBS];
        for (size_t i = n; i > 1; i--) { /* any order, a poll's kept one */
            size_t r = (size_t)rand() % i;
            struct job *t = s->q.queue[i - 1];
            s->q.queue[i - 1] = s->q.queue[r];
            s->q.queue[r] = t;
        }
        for (size_t i = 0; i < n; i++) {
            before[i] = s->q.queue[i];
            stale[i] = before[i]->priority = rand() % 1000;
        }
        for (size_t i = 0; i < n; i++) {
            model[i] = s->q.queue[i];
            model[i]->priority = prio_start(&s->pol.prio, &env, model[i], now, NULL);
        }
        qsort(model, n, sizeof *model, prio_cmp);
        for (size_t i = 0; i < n; i++)
            before[i]->priority = stale[i];
        struct job *const *v = qorder_look(s, now, n);
        for (size_t i = 0; i < n; i++)
            CHECK(v[i] == model[i]);
        for (size_t i = 0; i < n; i++) {
            CHECK(s->q.queue[i] == before[i]);
            CHECK(before[i]->priority == stale[i]);
        }
        sched_destroy(s);
    }
}

static int slots_in_use(const struct qgroup_set *g)
{
    int n = 0;
    for (int i = 0; i < QGROUP_SLOTS; i++)
        n += g->slot[i].gen == g->gen;
    return n;
}

/* The kept qgroup table: a new look starts empty, by its generation count
 * (also when the count wraps), and groups as a fresh table does. */
static void test_qgroup_generations(void)
{
    srand(7);
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.prio.cweight[PRIO_CRED] = 1;
    pol.prio.fweight[PF_USER] = 1;
    struct sched *s = sched_create(&pol, NULL);
    struct node_spec node = {.name = "n0", .procs = 4, .state = NODE_UP};
    CHECK(sched_add_node(s, &node, NULL) == 0);
    long latest;
    fill(s, &latest, 6, 3);
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    prio_batch_init(&pb, &s->pol.prio, &env);
    struct qgroup_set *g = xcalloc(1, sizeof *g);
    for (int look = 0; look < 6; look++) {
        if (look == 3)
            g->gen = ~0u; /* the next look wraps */
        qgroup_init(g);
        CHECK(g->gen != 0);
        CHECK_EQ(slots_in_use(g), 0);
        int seen[6] = {0}, want = 0;
        for (size_t i = 0; i < s->q.qlen; i += 1 + (size_t)look) {
            struct job *j = s->q.queue[i];
            if (qgroup_add(g, &pb, j) && j->sysprio_mode == SYSPRIO_NONE) {
                int u = j->user->name[1] - '0', gr = j->group->name[1] - '0';
                want += !(seen[u] >> gr & 1);
                seen[u] |= 1 << gr;
            }
        }
        CHECK_EQ(slots_in_use(g), want);
        CHECK_EQ(g->n, want);
    }
    free(g);
    sched_destroy(s);
}

/*
 * qgroup_any_before against the model (every grouped job's priority
 * computed, prio_cmp): a queue sorted at one time, `last` one of its jobs,
 * the jobs below it grouped and asked at a later time. Ties at the floor
 * of 1 and at caps are common under the random weights.
 */
static void test_any_before(void)
{
    srand(5);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s = random_sched(&latest);
        struct prio_env env;
        struct prio_batch pb;
        sched_prio_env(s, &env);
        long now = latest + rand() % 2000, later = now + rand() % 20000;
        size_t n = s->q.qlen;
        for (size_t i = 0; i < n; i++)
            s->q.queue[i]->priority = prio_start(&s->pol.prio, &env, s->q.queue[i], now, NULL);
        qsort(s->q.queue, n, sizeof *s->q.queue, prio_cmp);
        size_t at = (size_t)rand() % n;
        struct job *last = s->q.queue[at];
        last->priority = prio_start(&s->pol.prio, &env, last, later, NULL);
        prio_batch_init(&pb, &s->pol.prio, &env);
        struct qgroup_set *g = xcalloc(1, sizeof *g);
        qgroup_init(g);
        int want = 0;
        for (size_t i = at + 1; i < n; i++) {
            struct job *j = s->q.queue[i];
            if (!qgroup_add(g, &pb, j))
                continue;
            struct job copy = *j;
            copy.priority = prio_start(&s->pol.prio, &env, j, later, NULL);
            const struct job *c = &copy;
            want |= prio_cmp(&last, &c) > 0;
        }
        CHECK_EQ(qgroup_any_before(g, s, &pb, last, at + 1, n, later), want);
        free(g);
        sched_destroy(s);
    }
}

/* qgroup_add_run against qgroup_add job by job: the same jobs left to the
 * caller, the same groups and bests, over queues with holes (NULL). */
static void test_add_run(void)
{
    srand(11);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s = random_sched(&latest);
        struct prio_env env;
        struct prio_batch pb;
        sched_prio_env(s, &env);
        prio_batch_init(&pb, &s->pol.prio, &env);
        struct job *v[NJOBS];
        for (size_t i = 0; i < NJOBS; i++)
            v[i] = rand() % 5 ? s->q.queue[i] : NULL;
        size_t from = (size_t)rand() % NJOBS, to = from + (size_t)rand() % (NJOBS - from + 1);
        struct qgroup_set *run = xcalloc(1, sizeof *run), *one = xcalloc(1, sizeof *one);
        qgroup_init(run);
        qgroup_init(one);
        size_t i = from;
        while (i < to) {
            size_t k = qgroup_add_run(run, &pb, v, i, to);
            for (; i < k; i++)
                CHECK(!v[i] || qgroup_add(one, &pb, v[i]));
            if (k < to) {
                CHECK(v[k] != NULL);
                CHECK(!qgroup_add(one, &pb, v[k]));
                i = k + 1;
            }
        }
        CHECK_EQ(run->n, one->n);
        CHECK(!memcmp(run->used, one->used, sizeof run->used));
        for (int q = 0; q < QGROUP_SLOTS; q++)
            if (one->slot[q].gen == one->gen) {
                CHECK(run->slot[q].first == one->slot[q].first);
                CHECK(run->slot[q].best == one->slot[q].best);
                CHECK_EQ(run->slot[q].dir, one->slot[q].dir);
            }
        free(run);
        free(one);
        sched_destroy(s);
    }
}

/* A table a look kept and the next look extends (order_holds at one plan:
 * qgroup_add_run from where the last one stopped, no qgroup_init) is the
 * table a fresh look over the whole range builds; qgroup_init forgets
 * what was kept. */
static void test_kept_extends(void)
{
    srand(23);
    for (int round = 0; round < 300; round++) {
        long latest;
        struct sched *s = random_sched(&latest);
        struct prio_env env;
        struct prio_batch pb;
        sched_prio_env(s, &env);
        prio_batch_init(&pb, &s->pol.prio, &env);
        struct job *v[NJOBS];
        for (size_t i = 0; i < NJOBS; i++)
            v[i] = rand() % 5 ? s->q.queue[i] : NULL;
        size_t from = (size_t)rand() % NJOBS, mid = from + (size_t)rand() % (NJOBS - from + 1);
        size_t to = mid + (size_t)rand() % (NJOBS - mid + 1);
        struct qgroup_set *ext = xcalloc(1, sizeof *ext), *whole = xcalloc(1, sizeof *whole);
        qgroup_init(ext);
        for (size_t i = from; i < mid; i = qgroup_add_run(ext, &pb, v, i, mid) + 1)
            ;
        ext->kept = (struct qgroup_kept){1, v[0], from, mid, 1};
        for (size_t i = mid; i < to; i = qgroup_add_run(ext, &pb, v, i, to) + 1)
            ;
        qgroup_init(whole);
        for (size_t i = from; i < to; i = qgroup_add_run(whole, &pb, v, i, to) + 1)
            ;
        CHECK_EQ(ext->n, whole->n);
        CHECK(!memcmp(ext->used, whole->used, sizeof ext->used));
        for (int q = 0; q < QGROUP_SLOTS; q++)
            if (whole->slot[q].gen == whole->gen) {
                CHECK(ext->slot[q].first == whole->slot[q].first);
                CHECK(ext->slot[q].best == whole->slot[q].best);
            }
        CHECK(ext->kept.valid);
        qgroup_init(ext);
        CHECK(!ext->kept.valid);
        free(ext);
        free(whole);
        sched_destroy(s);
    }
}

/* A queue with no job at all (its array never made: NULL): a pass and a
 * look take it without touching the missing array (UBSan's non-null
 * check on memcpy stopped property.sh under make asan). */
static void test_empty_queue(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.prio.cweight[PRIO_CRED] = 1;
    pol.prio.fweight[PF_USER] = 1;
    struct sched *s = sched_create(&pol, NULL);
    CHECK(s->q.qlen == 0);
    qorder_start(s, 1000);
    qorder_look(s, 1000, 0);
    CHECK(s->q.qlen == 0);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_empty_queue);
    TEST_RUN(test_kept_extends);
    TEST_RUN(test_add_run);
    TEST_RUN(test_any_before);
    TEST_RUN(test_random_queues);
    TEST_RUN(test_out_of_submission);
    TEST_RUN(test_holes);
    TEST_RUN(test_kept_tail);
    TEST_RUN(test_kept_tail_chain);
    TEST_RUN(test_one_by_one);
    TEST_RUN(test_look);
    TEST_RUN(test_qgroup_generations);
    return TEST_DONE();
}
