/*
 * t_simout — the replay's outputs for other tools and readers: Batsim's
 * jobs.csv (batsim; its stretch against printf, its metadata fields kept by their names), the
 * schedule as SWF from a workload that is not SWF (swfout) and from an SWF trace's kept records
 * against a model, and the HTML page (html): its escaping and that it fetches nothing; the jobs CSV
 * and Batsim's rows written as the replay goes (sim_hooks.final) byte for byte as after it; the
 * nodes column from the table of names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "sim/batsim.h"
#include "sim/html.h"
#include "sim/report.h"
#include "sim/swfout.h"
#include "test.h"
#include "util/obuf.h"

#define CAPTURE(buf, call)                                                                         \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *f = open_memstream(&(buf), &len_);                                                   \
        call;                                                                                      \
        fclose(f);                                                                                 \
    } while (0)

/* The same for the writers of util/obuf. */
#define OCAPTURE(buf, call)                                                                        \
    do {                                                                                           \
        size_t len_;                                                                               \
        struct obuf *f = obuf_mem();                                                               \
        call;                                                                                      \
        (buf) = strdup(obuf_data(f, &len_));                                                       \
        obuf_close(f, NULL);                                                                       \
    } while (0)

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* A one-processor job of 10 s asking 100 s, submitted at submit, with
 * the names nm: the rows the Batsim tests write. */
static void add_small_job(struct workload *wl, const struct wl_names *nm, long submit)
{
    struct wl_job j = {.names = workload_names(wl, nm),
                       .submit = submit,
                       .tasks = 1,
                       .procs_per_task = 1,
                       .walltime_lo = 100,
                       .runtime_lo = 10};
    workload_add(wl, &j);
}

/* Three jobs with names: one ran on nodes 0-1 and 3, one was killed, one
 * rejected; a fourth never started. */
static void jobs(struct workload *wl, struct sim_outcome *out, struct sim_detail *d)
{
    static const char *const users[] = {"<script>x</script>", "bob", "carol", "dave"};
    workload_init(wl);
    for (int i = 0; i < 4; i++) {
        struct wl_names nm = {.user = workload_intern(wl, users[i]),
                              .group = workload_intern(wl, "staff"),
                              .class_ = workload_intern(wl, i ? "batch" : "long q")};
        char id[16];
        snprintf(id, sizeof id, "job.%d", i + 1);
        struct wl_job j = {.names = workload_names(wl, &nm),
                           .submit = 100 * i,
                           .tasks = 3,
                           .procs_per_task = 1,
                           .walltime_lo = 1000,
                           .runtime_lo = i == 1 ? 5000 : 500};
        workload_set_id(wl, &j, id);
        workload_add(wl, &j);
    }
    static struct job_slot slots[] = {{.node = 3, .nnodes = 1, .procs = 1},
                                      {.node = 0, .nnodes = 2, .procs = 1}};
    *d = (struct sim_detail){.slots = slots, .nslots = 2};
    out[0] = (struct sim_outcome){.start = 10, .end = 510, .more = d};
    out[1] = (struct sim_outcome){.start = 100, .end = 1100, .killed = 1};
    out[2] = (struct sim_outcome){.start = -1, .end = -1, .rejected = 1};
    out[3] = (struct sim_outcome){.start = -1, .end = -1};
}

static void test_batsim(void)
{
    struct workload wl;
    struct sim_outcome out[4];
    struct sim_detail d;
    jobs(&wl, out, &d);
    char *one = NULL, *r2 = NULL;
    OCAPTURE(one, batsim_write_jobs(f, &wl, out, NULL, 0));
    OCAPTURE(r2, batsim_write_jobs(f, &wl, out, NULL, 2));
    CHECK(strncmp(one, "job_id,workload_name,profile,submission_time,", 45) == 0);
    CHECK_EQ(count(one, "\n"), 4); /* the header, two finished, one rejected */
    CHECK_HAS(one, "\njob.1,w0,delay,0,3,1000,1,COMPLETED_SUCCESSFULLY,10,500,510,10,510,1.020000,"
                   "0-1 3,-1,user=<script>x</script>;group=staff;account=;class=long q;qos=\n");
    CHECK_HAS(one,
              "\njob.2,w0,delay,100,3,1000,0,COMPLETED_WALLTIME_REACHED,100,1000,1100,0,1000,");
    CHECK_HAS(one, "\njob.3,w0,delay,200,3,1000,0,REJECTED,-1,-1,-1,-1,-1,-1,,-1,user=carol;");
    CHECK(!strstr(one, "job.4")); /* never started: no row, as Batsim */
    CHECK(!strstr(r2, "job_id")); /* the header with run 1 only */
    CHECK_HAS(r2, "2,job.1,w0,");
    free(one);
    free(r2);
    workload_free(&wl);
}

/* Batsim's stretch (column 14), turnaround over execution time (0 s: over
 * 1 s), as printf's "%.6f" writes it: whole ones (written without the
 * division in floating point) and the others, 2,000 random jobs (fixed
 * seed) against snprintf. */
static void test_batsim_stretch(void)
{
    enum { N = 2000 };
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    srand(31);
    for (int i = 0; i < N; i++) {
        long exec = rand() % 4 == 0 ? rand() % 3 : rand() % 100000;
        long wait = rand() % 3 == 0 ? 0 : rand() % 2 ? exec * (rand() % 5) : rand() % 1000000;
        if (i < 4) /* the largest whole ratios: 10^8 - 1 and 10^8 and past */
            exec = 1, wait = 99999998 + i;
        else if (i < 8) /* millionths on a half, exactly: 1.0078125, printf's even 1.007812 */
            exec = 128, wait = 2 * i - 7;
        else if (i < 10) /* past 4e9 s: printf's rounding itself */
            exec = 3, wait = 4000000000L + i;
        struct wl_job j = {
            .submit = 0, .tasks = 1, .procs_per_task = 1, .walltime_lo = 1000, .runtime_lo = 10};
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){.start = wait, .end = wait + exec};
    }
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, &wl, out, NULL, 0));
    const char *p = strchr(rows, '\n') + 1;
    int bad = 0;
    for (int i = 0; i < N && p; i++) {
        const char *c = p;
        for (int k = 0; k < 13; k++)
            c = strchr(c, ',') + 1;
        long turn = out[i].end, exec = out[i].end - out[i].start;
        char want[64];
        int n = snprintf(want, sizeof want, "%.6f,", (double)turn / (double)(exec > 0 ? exec : 1));
        if (strncmp(c, want, (size_t)n) != 0 && bad++ < 5)
            fprintf(stderr, "job %d: turn %ld exec %ld: want %s got %.20s\n", i, turn, exec, want,
                    c);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    CHECK_EQ(bad, 0);
    free(rows);
    free(out);
    workload_free(&wl);
}

/* Batsim's metadata field (the last column) of 3,000 jobs whose names
 * interleave at random (fixed seed) among 40 users, some with a comma or a
 * quote (a quoted field), groups, accounts (some none), classes and QOS:
 * each row's against the field built here, the rows' fields kept by their
 * names and looked up again (more than the table's first 64 sets). */
static void test_batsim_metadata(void)
{
    enum { N = 3000, USERS = 40 };
    static const char *const groups[] = {"staff", "g,1", "hpc"}, *const accounts[] = {NULL, "a1"},
                             *const classes[] = {"batch", "long q"}, *const qos[] = {NULL, "hi"};
    char users[USERS][16];
    for (int u = 0; u < USERS; u++)
        snprintf(users[u], sizeof users[u], u % 7 == 3 ? "u\"%d" : u % 5 == 1 ? "u,%d" : "u%d", u);
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    char(*want)[160] = calloc(N, sizeof *want);
    srand(131);
    for (int i = 0; i < N; i++) {
        const char *u = users[rand() % USERS], *g = groups[rand() % 3], *a = accounts[rand() % 2],
                   *c = classes[rand() % 2], *q = qos[rand() % 2];
        if (i % 3) /* runs of one user's jobs, as traces have */
            u = users[(i / 3) % USERS];
        struct wl_names nm = {.user = workload_intern(&wl, u),
                              .group = workload_intern(&wl, g),
                              .account = a ? workload_intern(&wl, a) : NULL,
                              .class_ = workload_intern(&wl, c),
                              .qos = q ? workload_intern(&wl, q) : NULL};
        add_small_job(&wl, &nm, i);
        out[i] = (struct sim_outcome){.start = i, .end = i + 10};
        char meta[128];
        snprintf(meta, sizeof meta, "user=%s;group=%s;account=%s;class=%s;qos=%s", u, g, a ? a : "",
                 c, q ? q : "");
        if (!strpbrk(meta, ",\"")) {
            snprintf(want[i], sizeof want[i], ",-1,%s", meta);
            continue;
        }
        char *w = want[i] + sprintf(want[i], ",-1,\"");
        for (const char *m = meta; *m; m++) {
            if (*m == '"')
                *w++ = '"';
            *w++ = *m;
        }
        strcpy(w, "\"");
    }
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, &wl, out, NULL, 0));
    char *line = strchr(rows, '\n') + 1;
    int bad = 0, n = 0;
    for (char *end; n < N && (end = strchr(line, '\n')); line = end + 1, n++) {
        size_t len = (size_t)(end - line), wlen = strlen(want[n]);
        bad += len < wlen || memcmp(end - wlen, want[n], wlen) != 0;
    }
    CHECK_EQ(n, N);
    CHECK_EQ(bad, 0);
    CHECK_EQ(*line, '\0');
    free(rows);
    free(want);
    free(out);
    workload_free(&wl);
}

/* Batsim's allocated_resources (column 15) of 1,500 jobs (fixed seed) on
 * 0 to 12 slots of 0 to 4 nodes each, in any order, touching or
 * overlapping, against the interval set of a bitmap of their nodes; every
 * seventh job's user a name of 300 bytes, others' of 100. A row's nodes and field go in
 * one reservation up to 8 slots and 256 bytes of field, a piece at a time
 * past them: both ways. */
static void test_batsim_nodes(void)
{
    enum { N = 1500, MAXSLOTS = 12, NODES = 64 };
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    struct sim_detail *d = calloc(N, sizeof *d);
    struct job_slot(*slots)[MAXSLOTS] = calloc(N, sizeof *slots);
    char(*want)[512] = calloc(N, sizeof *want);
    char longname[301];
    memset(longname, 'u', 300);
    longname[300] = '\0';
    srand(4242);
    for (int i = 0; i < N; i++) {
        const char *u = i % 7 == 0 ? longname : i % 5 == 0 ? longname + 200 : "ann";
        struct wl_names nm = {.user = workload_intern(&wl, u)};
        add_small_job(&wl, &nm, i);
        unsigned n = (unsigned)(rand() % (MAXSLOTS + 1)), base = (unsigned)(rand() % NODES);
        int used[NODES + 8] = {0};
        for (unsigned k = 0; k < n; k++) {
            /* sorted and touching one time in two, else anywhere */
            unsigned node = rand() % 2 ? (base + 2 * k) % NODES : (unsigned)(rand() % NODES);
            unsigned nn = (unsigned)(rand() % 5);
            slots[i][k] = (struct job_slot){.node = node, .nnodes = nn, .procs = 1};
            for (unsigned m = 0; m < nn; m++)
                used[node + m] = 1;
        }
        d[i] = (struct sim_detail){.slots = slots[i], .nslots = n};
        out[i] = (struct sim_outcome){.start = i, .end = i + 10, .more = &d[i]};
        char *w = want[i];
        *w++ = ',';
        for (int a = 0; a < NODES + 8;) {
            if (!used[a]) {
                a++;
                continue;
            }
            int b = a;
            while (b + 1 < NODES + 8 && used[b + 1])
                b++;
            w += sprintf(w, "%s%d", w[-1] == ',' ? "" : " ", a);
            if (b > a)
                w += sprintf(w, "-%d", b);
            a = b + 1;
        }
        sprintf(w, ",-1,user=%s;group=;account=;class=;qos=\n", nm.user);
    }
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, &wl, out, NULL, 0));
    const char *p = strchr(rows, '\n') + 1;
    int bad = 0, n = 0;
    for (; n < N && *p; n++) {
        const char *c = p;
        for (int k = 0; k < 14; k++)
            c = strchr(c, ',') + 1;
        c--; /* at the comma before the nodes */
        const char *end = strchr(p, '\n') + 1;
        if (strncmp(c, want[n], (size_t)(end - c)) != 0 || strlen(want[n]) != (size_t)(end - c))
            if (bad++ < 5)
                fprintf(stderr, "job %d: want %s got %.*s", n, want[n], (int)(end - c), c);
        p = end;
    }
    CHECK_EQ(n, N);
    CHECK_EQ(bad, 0);
    free(rows);
    free(want);
    free(slots);
    free(d);
    free(out);
    workload_free(&wl);
}

/* Node indices of 1 to 10 digits (kept as text below 2^20, made each
 * time above), each used more than once (its text kept, then copied),
 * as one-slot jobs' spans "first" and "first-last": 2,000 rows (fixed
 * seed), each row's interval set against snprintf's. */
static void test_batsim_node_texts(void)
{
    enum { N = 2000, POOL = 64 };
    struct workload wl;
    workload_init(&wl);
    unsigned pool[POOL];
    srand(3151);
    for (int k = 0; k < POOL; k++) { /* 1 to 10 digits, 2^20 - 1 and 2^20 among them */
        unsigned digits = 1 + (unsigned)k % 10, v = 1 + (unsigned)rand() % 9;
        for (unsigned d = 1; d < digits; d++)
            v = 10 * v + (unsigned)rand() % 10;
        pool[k] = k == 0 ? 0 : k == 1 ? 1048575 : k == 2 ? 1048576 : v % 4000000000u;
    }
    struct job_slot *slot = calloc(N, sizeof *slot);
    struct sim_detail *d = calloc(N, sizeof *d);
    struct sim_outcome *out = calloc(N, sizeof *out);
    for (int i = 0; i < N; i++) {
        unsigned first = pool[rand() % POOL], n = rand() % 2 ? 1 : 1 + (unsigned)rand() % 3;
        slot[i] = (struct job_slot){.node = first, .nnodes = n, .procs = 1};
        d[i] = (struct sim_detail){.slots = &slot[i], .nslots = 1};
        struct wl_job j = {
            .submit = 0, .tasks = 1, .procs_per_task = 1, .walltime_lo = 100, .runtime_lo = 10};
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){.start = 0, .end = 10, .more = &d[i]};
    }
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, &wl, out, NULL, 0));
    const char *p = strchr(rows, '\n') + 1;
    int bad = 0;
    for (int i = 0; i < N && p; i++) {
        const char *c = p;
        for (int k = 0; k < 14 && c; k++)
            c = strchr(c, ',') + 1;
        char want[64];
        unsigned a = slot[i].node, b = a + slot[i].nnodes - 1;
        int n = a == b ? snprintf(want, sizeof want, "%u,-1,", a)
                       : snprintf(want, sizeof want, "%u-%u,-1,", a, b);
        if (strncmp(c, want, (size_t)n) != 0 && bad++ < 5)
            fprintf(stderr, "row %d: want %s got %.30s\n", i + 1, want, c);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    CHECK_EQ(bad, 0);
    free(rows);
    free(out);
    free(d);
    free(slot);
    workload_free(&wl);
}

/* A job on 300 slots apart (past the 8 a row writes in one reservation:
 * a reservation a span), in node order and in reverse (sorted first):
 * both rows' nodes "0-1 3 6-7 9 ..." as built here. */
/* The rows of two jobs of n slots (n <= 1,200), one in node order, one
 * reversed: how many hold the interval set of every third node's span. */
static int many_spans(unsigned N)
{
    struct workload wl;
    workload_init(&wl);
    static struct job_slot fwd[1200], rev[1200];
    static char want[1200 * 16];
    want[0] = ',';
    char *w = want + 1;
    for (unsigned k = 0; k < N; k++) {
        fwd[k] = (struct job_slot){.node = 3 * k, .nnodes = k % 2 ? 1 : 2, .procs = 1};
        rev[N - 1 - k] = fwd[k];
        w += sprintf(w, k % 2 ? "%s%u" : "%s%u-%u", k ? " " : "", 3 * k, 3 * k + 1);
    }
    strcat(want, ",-1,");
    struct sim_detail d[2] = {{.slots = fwd, .nslots = N}, {.slots = rev, .nslots = N}};
    struct sim_outcome out[2];
    for (int i = 0; i < 2; i++) {
        struct wl_job j = {
            .submit = 0, .tasks = 1, .procs_per_task = 1, .walltime_lo = 100, .runtime_lo = 10};
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){.start = 0, .end = 10, .more = &d[i]};
    }
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, &wl, out, NULL, 0));
    size_t n = count(rows, want);
    free(rows);
    workload_free(&wl);
    return (int)n;
}

/* Jobs of 300 and 1,000 slots (a row in one reservation: 8 KB of spans,
 * past a new file's first 4 KB, its room reserved by the slots) and of
 * 1,100 (past SLOTS_IN_PLACE: a span at a time). */
static void test_batsim_many_spans(void)
{
    CHECK_EQ(many_spans(300), 2);
    CHECK_EQ(many_spans(1000), 2);
    CHECK_EQ(many_spans(1100), 2);
}

static void test_swf_from_names(void)
{
    struct workload wl;
    struct sim_outcome out[4];
    struct sim_detail d;
    jobs(&wl, out, &d);
    struct swfout_info info = {.trace = "t.wtrace", .procs = 8, .nodes = 8, .unix_start = -1};
    char *s = NULL;
    struct err e;
    int rc = 0;
    OCAPTURE(s, rc = swfout_write(f, &wl, out, &info, &e));
    CHECK_EQ(rc, 0);
    CHECK_HAS(s, "; Version: 2.2\n");
    CHECK_HAS(s, "; MaxProcs: 8\n");
    CHECK(!strstr(s, "UnixStartTime"));
    CHECK_HAS(s, "; Note: user 1 is <script>x</script>\n");
    CHECK_HAS(s, "; Queue: 1 long q\n; Queue: 2 batch\n");
    /* id submit wait run alloc cpu mem req_procs req_time req_mem status user group app queue */
    CHECK_HAS(s, "\n1 0 10 500 3 -1 -1 3 1000 -1 1 1 1 -1 1 -1 -1 -1\n");
    CHECK_HAS(s, "\n2 100 0 1000 3 -1 -1 3 1000 -1 0 2 1 -1 2 -1 -1 -1\n");
    CHECK_HAS(s, "\n3 200 -1 -1 -1 -1 -1 3 1000 -1 5 3 1 -1 2 -1 -1 -1\n");
    CHECK_HAS(s, "\n4 300 -1 -1 -1 -1 -1 3 1000 -1 5 4 1 -1 2 -1 -1 -1\n");
    free(s);
    workload_free(&wl);
}

/* The rows of wl's n jobs (all ended) that differ from snprintf's up to
 * the stretch: how many (the first five printed). */
static int batsim_numbers_bad(struct workload *wl, const struct sim_outcome *out, int N)
{
    char *rows = NULL;
    OCAPTURE(rows, batsim_write_jobs(f, wl, out, NULL, 0));
    const char *p = strchr(rows, '\n') + 1;
    int bad = 0;
    for (int i = 0; i < N && p; i++) {
        const struct wl_job *w = &wl->jobs[i];
        const struct sim_outcome *o = &out[i];
        char want[256];
        long sub = (long)w->submit;
        char idt[16];
        int n =
            snprintf(want, sizeof want, "%s,w0,delay,%ld,%lld,%ld,%d,%s,%ld,%ld,%ld,%ld,%ld,",
                     wl_job_id(wl, w, idt), sub, wl_job_procs(w), wl_job_walltime(w), !o->killed,
                     o->killed ? "COMPLETED_WALLTIME_REACHED" : "COMPLETED_SUCCESSFULLY", o->start,
                     o->end - o->start, o->end, o->start - sub, o->end - sub);
        if (strncmp(p, want, (size_t)n) != 0 && bad++ < 5)
            fprintf(stderr, "row %d: want %s got %.120s\n", i + 1, want, p);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    free(rows);
    return bad;
}

/* Batsim's numbers from the submit time to the turnaround against
 * snprintf: 2,000 random jobs (fixed seed), submit times of 1 to 10
 * digits, most started at their submit time (the row copies its digits as
 * the start's, and the execution time's as the turnaround's), execution
 * times of 1 to 12 digits, some killed; ids mostly the last one's
 * successor (a row moves its last digit on), limits often the last row's
 * (its digits kept). */
static void test_batsim_numbers(void)
{
    enum { N = 2000 };
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    srand(3121);
    long next_id = 0, wall = 1;
    for (int i = 0; i < N; i++) {
        long submit = (long)(test_digits(10) % 4294967296LL);
        long start = rand() % 3 ? submit : submit + (long)test_digits(8);
        /* ids one after the other (past 9, 99, 999) or jumping; limits
         * the last row's or new ones */
        next_id += rand() % 4 ? 1 : 1 + rand() % 50;
        wall = rand() % 2 ? wall : 1 + rand() % 100000;
        struct wl_job j = {.submit = (uint32_t)submit,
                           .tasks = 1 + rand() % 300,
                           .procs_per_task = 1,
                           .walltime_lo = (uint32_t)wall,
                           .runtime_lo = 10};
        char id[16];
        snprintf(id, sizeof id, "%ld", next_id);
        workload_set_id(&wl, &j, id);
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){
            .start = start, .end = start + (long)test_digits(12), .killed = rand() % 5 == 0};
    }
    CHECK_EQ(batsim_numbers_bad(&wl, out, N), 0);
    free(out);
    workload_free(&wl);
}

/* The times as time_at writes them: submit times climbing a few seconds
 * to an hour a job (their ten-thousands mostly the last row's, crossing
 * 10^4 boundaries, 10^8 and a new digit), ends near each other or far,
 * each checked against snprintf. */
static void test_batsim_times(void)
{
    enum { N = 3000 };
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    srand(3131);
    long submit = 9000;
    for (int i = 0; i < N; i++) {
        if (i == N / 2)
            submit = 99990000; /* on to 10^8: a digit more */
        submit += rand() % 4 ? rand() % 300 : rand() % 4000;
        long start = rand() % 3 ? submit : submit + rand() % 20000;
        long exec = rand() % 8 ? rand() % 5000 : (long)test_digits(9);
        struct wl_job j = {.submit = (uint32_t)submit,
                           .tasks = 1,
                           .procs_per_task = 1,
                           .walltime_lo = 100,
                           .runtime_lo = 10};
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){.start = start, .end = start + exec};
    }
    CHECK_EQ(batsim_numbers_bad(&wl, out, N), 0);
    free(out);
    workload_free(&wl);
}

/* Times below 10^4 (no ten-thousands to keep: time_at makes every
 * digit) among larger ones, the first row's submit time 5 (nothing kept
 * yet): 600 jobs (fixed seed) whose submit, start and end times jump
 * between 0..999, 1,000..9,999 and 10,000..30,000, against snprintf. */
static void test_batsim_small_times(void)
{
    enum { N = 600 };
    static const long range[] = {1000, 10000, 30000};
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    srand(3141);
    for (int i = 0; i < N; i++) {
        long submit = i == 0 ? 5 : rand() % range[rand() % 3];
        long start = rand() % 3 ? submit : submit + rand() % range[rand() % 3];
        long end = start + rand() % range[rand() % 3];
        struct wl_job j = {.submit = (uint32_t)submit,
                           .tasks = 1,
                           .procs_per_task = 1,
                           .walltime_lo = 100,
                           .runtime_lo = 10};
        workload_add(&wl, &j);
        out[i] = (struct sim_outcome){.start = start, .end = end};
    }
    CHECK_EQ(batsim_numbers_bad(&wl, out, N), 0);
    free(out);
    workload_free(&wl);
}

/* A random canonical integer token: -1, or 1 to most digits (positive). */
static void int_token(char *t, size_t n, int minus_one, int most)
{
    if (minus_one && rand() % 4 == 0) {
        snprintf(t, n, "-1");
        return;
    }
    int digits = 1 + rand() % most;
    long long v = 1 + rand() % 9;
    for (int d = 1; d < digits; d++)
        v = 10 * v + rand() % 10;
    snprintf(t, n, "%lld", v);
}

/* A random canonical double token: -1, a whole number, or two decimals
 * not both 0 (below 10^10: "%.2f" gives them back). */
static void double_token(char *t, size_t n)
{
    int k = rand() % 3;
    long long whole = rand() % 2 ? rand() % 100 : (long long)rand() * 3;
    if (k == 0)
        snprintf(t, n, "-1");
    else if (k == 1)
        snprintf(t, n, "%lld", whole);
    else
        snprintf(t, n, "%lld.%02d", whole, 1 + rand() % 99);
}

/* Token t as the file writes it: as it is, or not canonical (leading
 * zeros, a whole double with ".00", "x.y0" as "x.y"), which the reader
 * keeps formatted as t; out has room for t and 4 bytes more. */
static void rendered(char *out, const char *t, int dbl)
{
    const char *point = strchr(t, '.');
    size_t len = strlen(t);
    int r = rand() % 6;
    if (r == 0 && t[0] != '-') {
        memcpy(out, "00", 2);
        memcpy(out + 2, t, len + 1);
    } else if (r == 1 && dbl && !point && t[0] != '-') {
        memcpy(out, t, len);
        memcpy(out + len, ".00", 4);
    } else if (r == 2 && point && point[2] == '0') {
        memcpy(out, t, (size_t)(point + 2 - t));
        out[point + 2 - t] = '\0';
    } else {
        memcpy(out, t, len + 1);
    }
}

/*
 * The SWF file from a trace's kept records (write_from_recs) against a
 * model: each record's canonical line with fields 3, 4, 5 and 11 the
 * replay's, or with -1 as field 3 for a record the replay skipped. 400
 * random lines (fixed seed) whose tokens take 1 to 18 digits, some written
 * not canonical (kept formatted), some with tabs and runs of blanks: the
 * pieces copied 16 bytes at a time end anywhere in a chunk, up to lines of
 * some 300 bytes.
 */
static void swf_from_recs(unsigned seed, int plain)
{
    enum { N = 400, TOK = 32 };
    static char canon[N][18][TOK];
    srand(seed);
    char path[] = "/tmp/t_simout_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *tf = fdopen(fd, "w");
    fprintf(tf, "; MaxProcs: 1000000\n");
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 18; k++) {
            int dbl = k == 5 || k == 6 || k == 9, is_time = k == 2 || k == 3 || k == 17;
            if (dbl)
                double_token(canon[i][k], TOK);
            else
                int_token(canon[i][k], TOK, k >= 2, is_time ? 12 : 18); /* times: 2^40 */
        }
        snprintf(canon[i][0], TOK, "%d", i + 1);                /* ids in order */
        snprintf(canon[i][1], TOK, "%d", 10 * i + rand() % 10); /* submits */
        snprintf(canon[i][7], TOK, "%d", 1 + rand() % 64);      /* procs asked */
        snprintf(canon[i][8], TOK, "%d", 1 + rand() % 100000);  /* walltime */
        snprintf(canon[i][16], TOK, "-1");                      /* no preceding job */
        if (rand() % 8 == 0)                                    /* skipped: no procs */
            snprintf(canon[i][7], TOK, "-1"), snprintf(canon[i][4], TOK, "-1");
        for (int k = 0; k < 18; k++) {
            char tok[TOK + 8];
            rendered(tok, canon[i][k], k == 5 || k == 6 || k == 9);
            const char *gap = k == 0 ? "" : rand() % 5 == 0 ? " \t " : " ";
            fprintf(tf, "%s%s", plain && k ? " " : gap, plain ? canon[i][k] : tok);
        }
        fprintf(tf, "%s\n", rand() % 5 == 0 && !plain ? "  " : "");
    }
    fclose(tf);
    struct workload wl;
    struct err e;
    int read = workload_read_swf(path, WL_KEEP_RECS, &wl, &e);
    if (read != 0)
        fprintf(stderr, "%s\n", e.msg);
    CHECK_EQ(read, 0);
    unlink(path);
    struct sim_outcome *out = calloc(wl.njobs ? wl.njobs : 1, sizeof *out);
    int *job_of_line = malloc((N + 2) * sizeof *job_of_line);
    for (int i = 0; i < N + 2; i++)
        job_of_line[i] = -1;
    for (size_t j = 0; j < wl.njobs; j++) {
        long sub = wl.jobs[j].submit;
        switch (j % 5) {
        case 0:
            out[j] = (struct sim_outcome){.start = sub + (long)j % 7, .end = sub + 40};
            break;
        case 1:
            out[j] = (struct sim_outcome){.start = sub, .end = sub + 9, .killed = 1};
            break;
        case 2:
            out[j] = (struct sim_outcome){.start = -1, .end = -1, .rejected = 1};
            break;
        case 3:
            out[j] = (struct sim_outcome){.start = -1, .end = -1};
            break;
        default:
            out[j] = (struct sim_outcome){.start = sub + 123456789, .end = -1};
            break;
        }
        job_of_line[wl.jobs[j].line] = (int)j;
    }
    CHECK(wl.njobs > N / 2 && wl.njobs < N);
    struct swfout_info info = {.trace = "t.swf", .unix_start = -1};
    char *s = NULL;
    int rc = 0;
    OCAPTURE(s, rc = swfout_write(f, &wl, out, &info, &e));
    CHECK_EQ(rc, 0);
    const char *p = s;
    while (*p == ';')
        p = strchr(p, '\n') + 1;
    for (int i = 0; i < N; i++) {
        char want[18 * TOK + 2] = "", f[18][TOK];
        memcpy(f, canon[i], sizeof f);
        int j = job_of_line[i + 2]; /* the header is line 1 */
        if (j < 0) {
            snprintf(f[2], TOK, "-1");
        } else {
            const struct sim_outcome *o = &out[j];
            long long wait = -1, run = -1, alloc = -1, status = 5;
            if (!o->rejected && o->start >= 0)
                wait = o->start - wl.jobs[j].submit, alloc = wl_job_procs(&wl.jobs[j]);
            if (!o->rejected && o->end >= 0)
                run = o->end - o->start, status = o->killed ? 0 : 1;
            else if (!o->rejected && o->start >= 0)
                status = -1;
            snprintf(f[2], TOK, "%lld", wait), snprintf(f[3], TOK, "%lld", run);
            snprintf(f[4], TOK, "%lld", alloc), snprintf(f[10], TOK, "%lld", status);
        }
        for (int k = 0; k < 18; k++)
            strcat(strcat(want, k ? " " : ""), f[k]);
        strcat(want, "\n");
        size_t len = strlen(want);
        CHECK(strncmp(p, want, len) == 0);
        if (strncmp(p, want, len) != 0) {
            fprintf(stderr, "line %d:\n  got  %.*s  want %s", i + 2, (int)(strchr(p, '\n') - p + 1),
                    p, want);
            break;
        }
        p += len;
    }
    CHECK(*p == '\0');
    free(s);
    free(job_of_line);
    free(out);
    workload_free(&wl);
}

static void test_swf_from_recs(void)
{
    swf_from_recs(3117, 0);
}

/* The same with every line canonical as written (one space apart, each
 * token as swfpack_format writes it): kept as the reader read it, packed
 * straight from its line with its length and fields' starts the reader's
 * (swf_rec.text_len, swf_rec.at). */
static void test_swf_from_canonical_recs(void)
{
    swf_from_recs(4242, 1);
}

static void test_html(void)
{
    struct workload wl;
    struct sim_outcome out[4];
    struct sim_detail d;
    jobs(&wl, out, &d);
    struct report r = {0};
    report_compute(&r, &wl, out, 8, NULL);
    struct plot_series p;
    plot_series_init(&p, 0, 10);
    plot_series_add(&p, 0, 3, 8, 1, 1);
    plot_series_add(&p, 100, 6, 8, 0, 2);
    plot_series_add(&p, 1100, 0, 8, 0, 0);
    const char *ov[] = {"RESERVATIONDEPTH=<2>"};
    struct html_run runs[2] = {
        {.label = "a&b.cfg",
         .config = "a&b.cfg",
         .config_text = "# <i>x</i>\nBACKFILLPOLICY NONE\n",
         .overrides = ov,
         .noverrides = 1,
         .policy = "BACKFILLPOLICY NONE",
         .r = &r,
         .series = &p},
        {.label = "defaults", .policy = "BACKFILLPOLICY FIRSTFIT", .r = &r, .series = &p},
    };
    char *s = NULL;
    int rc = 0;
    CAPTURE(s, rc = html_write_report(f, "t\"<x>.swf", runs, 2));
    CHECK_EQ(rc, 0);
    CHECK(strncmp(s, "<!DOCTYPE html>\n", 16) == 0);
    CHECK(strcmp(s + strlen(s) - 8, "</html>\n") == 0);
    CHECK(!strstr(s, "http:") && !strstr(s, "https:") && !strstr(s, "src="));
    CHECK_EQ(count(s, "<script"), 1);
    CHECK(!strstr(s, "<script>x")); /* the user named <script>x</script> */
    CHECK_HAS(s, "&lt;script&gt;x&lt;/script&gt;");
    CHECK_HAS(s, "t&quot;&lt;x&gt;.swf");
    CHECK_HAS(s, "a&amp;b.cfg");
    CHECK_HAS(s, "# &lt;i&gt;x&lt;/i&gt;\nBACKFILLPOLICY NONE\n");
    CHECK_HAS(s, "RESERVATIONDEPTH=&lt;2&gt;");
    CHECK_HAS(s, "long q");
    CHECK_HAS(s, "Maui's defaults (no --config)"); /* the page's own text, not escaped */
    CHECK_EQ(count(s, "<svg class=\"ts\""), 2);
    CHECK_EQ(count(s, "<polyline"), 2 * 2 * 2 + 2 * 2); /* time: runs x charts x 2; CDFs */
    CHECK_EQ(count(s, "<table"), count(s, "</table>"));
    CHECK_EQ(count(s, "<tr>"), count(s, "</tr>"));
    free(s);
    plot_series_free(&p);
    report_free(&r);
    workload_free(&wl);
}

/* A replay's rows written as its jobs become final (sim_hooks.final). */
struct streamed {
    struct report_jobs_csv *csv;
    struct batsim *batsim;
    size_t to;  /* the last call's */
    int unsure; /* calls that handed over an outcome not final */
    int short_; /* calls that stopped before an outcome already final */
    int late;   /* iterations that ended with a final outcome not handed over */
    int calls;
    size_t n;                      /* the workload's jobs */
    const struct sim_outcome *out; /* the replay's */
};

static int is_final(const struct sim_outcome *o)
{
    return o->end >= 0 || o->rejected;
}

/* After each iteration: the outcomes final so far from the first were
 * handed over in it (sim.c's pass_final skips its walk only when none
 * became final). */
static void on_iterated(void *ctx, const struct sched *s, long now)
{
    (void)s;
    (void)now;
    struct streamed *st = ctx;
    st->late += st->to < st->n && is_final(&st->out[st->to]);
}

static void on_final(void *ctx, const struct sim_outcome *out, size_t to)
{
    struct streamed *st = ctx;
    for (size_t i = 0; i < to; i++)
        st->unsure += !is_final(&out[i]);
    st->unsure += to <= st->to;
    st->short_ += to < st->n && is_final(&out[to]);
    st->to = to;
    st->calls++;
    report_jobs_csv_rows(st->csv, out, to);
    batsim_rows(st->batsim, out, to);
}

/* N random jobs (fixed seed) on 6 nodes of 4 processors under EASY, some
 * too big (rejected), some killed at their walltime, and some still
 * running or waiting at `until`: replayed with their rows written as they
 * become final, then again with the rows written after the replay. */
static void replay_rows(struct workload *wl, long until, int streamed, char **csv, char **bat)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 4, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    struct sim_outcome *out = calloc(wl->njobs, sizeof *out);
    struct obuf *fc = obuf_mem(), *fb = obuf_mem();
    struct streamed st = {.csv = report_jobs_csv_open(fc, wl, s, 0, 1),
                          .batsim = batsim_open(fb, wl, s, 0),
                          .n = wl->njobs,
                          .out = out};
    struct sim_hooks h = {.record_nodes = 1,
                          .forget_ended = 1,
                          .final = streamed ? on_final : NULL,
                          .iterated = streamed ? on_iterated : NULL,
                          .ctx = &st};
    sim_run(s, wl, out, until, &h);
    CHECK_EQ(report_jobs_csv_close(st.csv, out, sched_last_iteration(s)), 0);
    CHECK_EQ(batsim_close(st.batsim, out), 0);
    CHECK_EQ(st.unsure, 0);
    CHECK_EQ(st.short_, 0);
    CHECK_EQ(st.late, 0);
    if (streamed) {
        CHECK(st.calls > 10);
        size_t kept = 0; /* details left on written outcomes: blocks' firsts */
        for (size_t i = 0; i < st.to; i++)
            kept += out[i].more && !out[i].rejected;
        CHECK(kept <= 1);
    }
    size_t len;
    *csv = strdup(obuf_data(fc, &len));
    *bat = strdup(obuf_data(fb, &len));
    obuf_close(fc, NULL);
    obuf_close(fb, NULL);
    sim_outcomes_free(out, wl->njobs);
    free(out);
    sched_destroy(s);
}

static void test_rows_as_jobs_end(void)
{
    enum { N = 600 };
    struct workload wl;
    workload_init(&wl);
    srand(3131);
    /* users whose fields must be quoted, kept once made (report.c) */
    static const char *const users[] = {"ann,e", "bob", "c\"q", "dee"};
    const struct wl_names *names[4];
    for (int u = 0; u < 4; u++)
        names[u] = workload_names(&wl, &(struct wl_names){.user = workload_intern(&wl, users[u]),
                                                          .group = workload_intern(&wl, "g")});
    long t = 0;
    int per_user[4] = {0};
    for (int i = 0; i < N; i++) {
        t += rand() % 40;
        long run = 1 + rand() % 900;
        int u = rand() % 4;
        per_user[u]++;
        /* 30 processors: rejected; the first job too (final before any other) */
        int tasks = rand() % 25 == 0 || i == 0 ? 30 : 1 + rand() % 12;
        struct wl_job j = {.names = names[u],
                           .id = (uint32_t)i + 1,
                           .submit = t,
                           .tasks = tasks,
                           .procs_per_task = 1,
                           .runtime_lo = run,
                           .walltime_lo = rand() % 8 == 0 ? run / 2 + 1 : run + rand() % 600,
                           .line = i + 1};
        workload_add(&wl, &j);
    }
    long untils[] = {SIM_FOREVER, t / 2};
    for (size_t k = 0; k < 2; k++) {
        char *csv[2], *bat[2];
        for (int streamed = 0; streamed < 2; streamed++)
            replay_rows(&wl, untils[k], streamed, &csv[streamed], &bat[streamed]);
        CHECK(count(csv[0], "\n") == N + 1);
        CHECK(count(csv[0], ",rejected,") > 5);
        CHECK(count(csv[0], ",killed,") > 5);
        CHECK(k == 0 || count(csv[0], ",never_started,") > 5);
        CHECK(strcmp(csv[0], csv[1]) == 0);
        CHECK(strcmp(bat[0], bat[1]) == 0);
        CHECK(count(csv[0], ",\"ann,e\",g,") > 20 && count(csv[0], ",bob,g,") > 20);
        CHECK(count(csv[0], ",\"c\"\"q\",g,") > 20 && count(csv[0], ",dee,g,") > 20);
        CHECK(count(csv[0], "ann,e") == count(csv[0], ",\"ann,e\",g,"));
        /* Batsim's metadata names each row's own user (a forgotten job's
         * field reused while its indices and names are the last row's),
         * every job a row when all end */
        static const char *const meta[] = {"user=ann,e;", "user=bob;", "user=c\"\"q;", "user=dee;"};
        for (int u = 0; k == 0 && u < 4; u++)
            CHECK_EQ(count(bat[0], meta[u]), per_user[u]);
        for (int i = 0; i < 2; i++) {
            free(csv[i]);
            free(bat[i]);
        }
    }
    workload_free(&wl);
}

/* 300 random jobs' slots (fixed seed) over s's nodes: the nodes column
 * from the table of measured, copied names (the jobs CSV's way: copied
 * out 16 bytes at a time) is the one from the names compared pair by pair,
 * and so is sim_noderuns_format's for slots the table holds. Slots past
 * the table (nodes added after it) take the pairs' way. */
static int table_as_pairs(struct sched *s, const struct sim_noderuns *runs, unsigned nodes,
                          unsigned seed)
{
    srand(seed);
    int same = 1;
    for (int j = 0; j < 300; j++) {
        struct job_slot slots[6];
        size_t n = 1 + (size_t)(rand() % 6);
        for (size_t i = 0; i < n; i++) {
            unsigned first = (unsigned)rand() % nodes;
            slots[i] = (struct job_slot){.node = first,
                                         .nnodes = 1 + (unsigned)rand() % (nodes - first),
                                         .procs = 1 + (unsigned)rand() % 2};
            slots[i].nnodes = slots[i].nnodes > 50 ? 1 + slots[i].nnodes % 50 : slots[i].nnodes;
        }
        char *table = NULL, *pairs = NULL, *held = NULL;
        OCAPTURE(table, sim_format_slots(f, s, runs, slots, n));
        OCAPTURE(pairs, sim_format_slots(f, s, NULL, slots, n));
        if (strcmp(table, pairs) != 0 && same)
            fprintf(stderr, "job %d: '%s' against '%s'\n", j, table, pairs);
        same &= strcmp(table, pairs) == 0;
        if (sim_noderuns_holds(runs, slots, n)) { /* the writer thread's way: no check */
            OCAPTURE(held, sim_noderuns_format(f, runs, slots, n));
            same &= strcmp(held, pairs) == 0;
            free(held);
        }
        free(table);
        free(pairs);
    }
    return same;
}

/* Add 40 nodes named PREFIX0..PREFIX39 (k == 1: a gap of 7 after 20), or
 * not numbered (prefix NULL: never a range), 4 processors each. */
static void add_named(struct sched *s, const char *prefix, int gap)
{
    for (int i = 0; i < 40; i++) {
        char name[96];
        if (!prefix)
            snprintf(name, sizeof name, "host%c%c", 'a' + i / 26, 'a' + i % 26);
        else
            snprintf(name, sizeof name, "%s%d", prefix, i + (gap && i > 20) * 7);
        struct node_spec spec = {.name = name, .procs = 4, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
}

/* The table's nodes column against the pairs': nodes whose names are
 * short, numbered, past 16 and 32 bytes, not numbered, or with a '[' before
 * their number; then all at most 16 bytes (one copy of 16 each), with
 * nodes added after the table. */
static void test_node_names(void)
{
    static const char *const prefixes[] = {
        "n", "compute-rack-07-blade-", "x", NULL, "a-very-long-node-name-prefix-of-40-bytes-",
        "r["};
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int k = 0; k < 6; k++) /* "r[": never a range (hostrange_next) */
        add_named(s, prefixes[k], k == 1);
    struct sim_noderuns *runs = sim_noderuns_create(s);
    CHECK(table_as_pairs(s, runs, 240, 1331));
    /* one each way, as expected */
    struct job_slot one[] = {{.node = 40 + 19, .nnodes = 4, .procs = 2}};
    char *text = NULL;
    OCAPTURE(text, sim_format_slots(f, s, runs, one, 1));
    CHECK(strcmp(text, "compute-rack-07-blade-[19-20]:2 compute-rack-07-blade-[28-29]:2") == 0);
    free(text);
    sim_noderuns_destroy(runs);
    sched_destroy(s);

    s = sched_create(&pol, NULL);
    static const char *const short16[] = {"n", "rack-07-blade-", "", NULL, "node-00"};
    for (int k = 0; k < 5; k++)
        add_named(s, short16[k], k == 1);
    runs = sim_noderuns_create(s);
    add_named(s, "late", 0); /* past the table */
    CHECK(table_as_pairs(s, runs, 240, 2718));
    OCAPTURE(text, sim_format_slots(f, s, runs, (struct job_slot[]){{38, 5, 1}, {199, 3, 1}}, 2));
    CHECK(strcmp(text, "n[38-39]:1 rack-07-blade-[0-2]:1 node-0039:1 late[0-1]:1") == 0);
    free(text);
    sim_noderuns_destroy(runs);
    sched_destroy(s);
}

/* Every single slot (first node, count, processors) over nodes with runs,
 * a gap in a run, names that are no run and names past 16 bytes: the
 * writer's way (sim_noderuns_format, whose one-slot, one-run case skips
 * the table's walk) writes what the names compared pair by pair do. */
static void test_one_slot(void)
{
    static const char *const prefixes[] = {"n", "compute-rack-07-blade-", NULL, "node-00"};
    struct sched_policy pol;
    sched_policy_default(&pol);
    for (int shrt = 0; shrt < 2; shrt++) {
        struct sched *s = sched_create(&pol, NULL);
        for (int k = 0; k < 4; k++) /* short16 without the long prefix */
            if (!shrt || k != 1)
                add_named(s, prefixes[k], k == 1 || k == 3);
        unsigned nodes = shrt ? 120 : 160;
        struct sim_noderuns *runs = sim_noderuns_create(s);
        int same = 1;
        for (unsigned first = 0; first < nodes; first++)
            for (unsigned n = 0; first + n <= nodes && n <= 45; n++) {
                struct job_slot one = {.node = first, .nnodes = n, .procs = 1 + n % 3};
                char *held = NULL, *pairs = NULL;
                OCAPTURE(held, sim_noderuns_format(f, runs, &one, 1));
                OCAPTURE(pairs, sim_format_slots(f, s, NULL, &one, 1));
                if (strcmp(held, pairs) != 0 && same)
                    fprintf(stderr, "slot %u+%u: '%s' against '%s'\n", first, n, held, pairs);
                same &= strcmp(held, pairs) == 0;
                free(held);
                free(pairs);
            }
        CHECK(same);
        sim_noderuns_destroy(runs);
        sched_destroy(s);
    }
}

/* A job on hundreds of runs (Curie's hold thousands): the table's way
 * reserves room for a batch of entries at once (sim.c's
 * TABLE_BATCH_BYTES), and takes more each time a batch is used; names
 * short and long (a smaller batch), every entry still what the names
 * compared pair by pair make. */
static void test_many_entries(void)
{
    static const char *const prefixes[] = {"n", "a-very-long-node-name-prefix-of-40-bytes-", NULL};
    struct sched_policy pol;
    sched_policy_default(&pol);
    for (int k = 0; k < 3; k++) {
        struct sched *s = sched_create(&pol, NULL);
        add_named(s, prefixes[k], 0);
        add_named(s, "x", 0);
        struct sim_noderuns *runs = sim_noderuns_create(s);
        struct job_slot slots[600];
        for (unsigned i = 0; i < 600; i++) /* apart, or a run's next with other processors */
            slots[i] =
                (struct job_slot){.node = (i * 7) % 79, .nnodes = 1 + i % 2, .procs = 1 + i % 3};
        char *held = NULL, *pairs = NULL;
        OCAPTURE(held, sim_noderuns_format(f, runs, slots, 600));
        OCAPTURE(pairs, sim_format_slots(f, s, NULL, slots, 600));
        CHECK(strlen(pairs) > 4000); /* several batches */
        CHECK(strcmp(held, pairs) == 0);
        free(held);
        free(pairs);
        sim_noderuns_destroy(runs);
        sched_destroy(s);
    }
}

/* A job on several slots keeps them in its detail's own room, made for at
 * least 16 (sim.c's OWN_SLOTS_MIN): a detail reused for the next job of
 * several slots then holds its slots without a new one (the jobs CSV's
 * replay paid a malloc and a free for one such job in three, HPC2N). */
static void test_own_room(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 4, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    struct workload wl;
    workload_init(&wl);
    struct wl_job j = {.id = 1,
                       .submit = 0,
                       .tasks = 6,
                       .procs_per_task = 1,
                       .runtime_lo = 10,
                       .walltime_lo = 20,
                       .line = 1};
    workload_add(&wl, &j);
    struct sim_outcome out[1] = {{0}};
    struct sim_hooks h = {.record_nodes = 1};
    sim_run(s, &wl, out, SIM_FOREVER, &h);
    const struct sim_detail *d = out[0].more;
    CHECK(d != NULL);
    if (d) {
        CHECK(d->nslots >= 2);
        CHECK(d->slots == d->own);
        CHECK(d->own_cap >= 16);
    }
    sim_outcomes_free(out, 1);
    workload_free(&wl);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_batsim);
    TEST_RUN(test_batsim_stretch);
    TEST_RUN(test_batsim_numbers);
    TEST_RUN(test_batsim_times);
    TEST_RUN(test_batsim_small_times);
    TEST_RUN(test_batsim_metadata);
    TEST_RUN(test_batsim_nodes);
    TEST_RUN(test_batsim_many_spans);
    TEST_RUN(test_batsim_node_texts);
    TEST_RUN(test_swf_from_names);
    TEST_RUN(test_swf_from_recs);
    TEST_RUN(test_swf_from_canonical_recs);
    TEST_RUN(test_html);
    TEST_RUN(test_rows_as_jobs_end);
    TEST_RUN(test_node_names);
    TEST_RUN(test_one_slot);
    TEST_RUN(test_own_room);
    TEST_RUN(test_many_entries);
    return TEST_DONE();
}
