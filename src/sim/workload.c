/* workload — see workload.h. */
#include "sim/workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* One record a trace line, for the whole replay: its size is the replay's
 * memory (docs/simulation.md, "Memory"). */
_Static_assert(sizeof(struct wl_job) <= 40, "struct wl_job grew past 40 bytes");

/* Why a record cannot be replayed, or NULL if it can. */
static const char *unusable(const struct swf_rec *r)
{
    if (r->req_procs <= 0 && r->alloc <= 0)
        return "no processors";
    if (r->runtime < 0)
        return "negative run time";
    if (r->submit < 0)
        return "negative submit time";
    return NULL;
}

/* Decimal text of v into buf (at least 21 bytes); snprintf is the costliest
 * thing a trace load would do. */
static const char *decimal(char *buf, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    char *p = buf;
    while (n)
        *p++ = tmp[--n];
    *p = '\0';
    return buf;
}

/* Numbers below this have their interned name remembered by value. */
#define NUM_NAMES_MAX 65536

/* A numbered name (user 12, queue 3), or NULL for an unknown (-1) value.
 * Three per trace line: small numbers skip the text and the hash. */
static const char *num_name(struct workload *wl, long long v)
{
    char buf[24];
    if (v < 0)
        return NULL;
    if (v >= NUM_NAMES_MAX)
        return workload_intern(wl, decimal(buf, v));
    size_t i = (size_t)v;
    if (i >= wl->capnum) {
        size_t old = wl->capnum;
        wl->numnames = xgrow(wl->numnames, &wl->capnum, i + 1, sizeof *wl->numnames);
        memset(wl->numnames + old, 0, (wl->capnum - old) * sizeof *wl->numnames);
    }
    if (!wl->numnames[i])
        wl->numnames[i] = workload_intern(wl, decimal(buf, v));
    return wl->numnames[i];
}

/* Whether the trace records the CPU time the job used: SWF's -1 (any
 * negative value) is "unknown", 0 a job that used no CPU (a sleep). */
static int cpu_known(const struct swf_rec *r)
{
    return r->cpu >= 0 && r->runtime > 0;
}

/* Fraction of its processors the job kept busy: average CPU time per
 * processor over runtime, where the trace records it (FSPOLICY
 * UTILIZEDPS). */
static float utilization(const struct swf_rec *r)
{
    if (!cpu_known(r))
        return 0;
    double u = r->cpu / (double)r->runtime;
    return (float)(u < 1 ? u : 1);
}

int workload_check_fit(long long v, long long max, const char *path, long line, const char *what,
                       struct err *err)
{
    if (v >= 0 && v <= max)
        return 0;
    return err_set(err, "%s:%ld: %s %lld does not fit (at most %lld)", path, line, what, v, max);
}

int workload_check_job(const char *path, long line, const char *id, long long submit,
                       long long runtime, long long walltime, long long tasks, long long ppt,
                       struct err *err)
{
    const struct {
        const char *what;
        long long v, max;
    } f[] = {{"line number", line, WL_MAX32},    {"submit time", submit, WL_MAX_SUBMIT},
             {"run time", runtime, WL_MAX_TIME}, {"walltime", walltime, WL_MAX_TIME},
             {"task count", tasks, WL_MAX32},    {"processors per task", ppt, WL_MAX_PPT}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (f[i].v < 0 || f[i].v > f[i].max)
            return err_set(err, "%s:%ld: job %s: %s %lld does not fit (at most %lld)", path, line,
                           id ? id : "(no id)", f[i].what, f[i].v, f[i].max);
    return 0;
}

/* The fields of r a job record narrows, each within its range, or -1 with
 * err naming the field, the file and the line (times fit: the SWF reader
 * keeps them within 2^40). */
static int swf_fits(const struct swf_rec *r, long long procs, const char *path, struct err *err)
{
    if (workload_check_fit(r->line, WL_MAX32, path, r->line, "line number", err) < 0 ||
        workload_check_fit(r->submit, WL_MAX_SUBMIT, path, r->line, "submit time (field 2)", err) <
            0)
        return -1;
    return workload_check_fit(procs, WL_MAX32, path, r->line, "processors (field 8, else 5)", err);
}

/* r's job into *j (in place: not built aside and copied), with names (r's
 * user, group and queue interned in wl); a text id (one that is not a
 * number below WL_ID_TEXT) is left to the caller: *idtext gets its copy in
 * wl, else NULL. */
static void job_of(struct wl_job *j, struct workload *wl, const struct swf_rec *r,
                   const struct wl_names *names, const char **idtext)
{
    long long procs = r->req_procs > 0 ? r->req_procs : r->alloc;
    long walltime = (long)(r->req_time > 0 ? r->req_time : r->runtime);
    *j = (struct wl_job){
        .submit = (uint32_t)r->submit,
        .tasks = (int32_t)procs,
        .procs_per_task = 1,
        /* The SWF partition number names a partition of the machine the
         * log came from, not a request the replayed cluster can honour: a
         * cluster built from MaxProcs has one partition. */
        .names = names,
        .util = utilization(r),
        .util_known = (unsigned)cpu_known(r),
        .line = (int32_t)r->line,
    };
    wl_job_set_runtime(j, (long)r->runtime);
    wl_job_set_walltime(j, walltime > 0 ? walltime : 1);
    *idtext = NULL;
    if (r->id >= 0 && r->id < WL_ID_TEXT) /* a number: no text made and read back */
        j->id = (uint32_t)r->id;
    else if (r->id < 0)
        j->id = WL_NO_ID;
    else /* too large for a number id (workload_set_id): a text */
        *idtext = workload_keep(wl, decimal((char[24]){0}, r->id));
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Job ids in order: numerically when both are numbers ("9" < "10"), else
 * as text. */
static int id_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    if (all_digits(a) && all_digits(b)) {
        a += strspn(a, "0");
        b += strspn(b, "0");
        size_t la = strlen(a), lb = strlen(b);
        if (la != lb)
            return la < lb ? -1 : 1;
    }
    return strcmp(a, b);
}

/* A job's id as text for id_cmp: text, its text when it is a text id
 * (the caller looked it up), else its number written into buf. */
static const char *id_text(const struct wl_job *w, const char *text, char *buf)
{
    if (w->id == WL_NO_ID || w->id >= WL_ID_TEXT)
        return w->id == WL_NO_ID ? NULL : text;
    /* Written from its end, two digits a step: once a job a replay (its
     * submission names it), and again a row of each output. */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char *p = buf + WL_ID_LEN - 1;
    uint32_t v = w->id;
    *p = '\0';
    for (; v >= 100; v /= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (v % 100), 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

/* Queue order of submission: submit time, then job id, then file line. The
 * engine breaks priority ties by this order, so equal priorities go to the
 * earlier submission, then the lower job id. Ids compare as id_cmp compares
 * their texts (tx, ty: a text id's text); two numbers, whose texts have no
 * leading zero, as numbers. */
static int submit_cmp(const struct wl_job *x, const char *tx, const struct wl_job *y,
                      const char *ty)
{
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    int c;
    if (x->id < WL_ID_TEXT && y->id < WL_ID_TEXT) {
        c = x->id < y->id ? -1 : (x->id > y->id);
    } else {
        char a[WL_ID_LEN], b[WL_ID_LEN];
        c = id_cmp(id_text(x, tx, a), id_text(y, ty, b));
    }
    if (c)
        return c;
    return x->line < y->line ? -1 : (x->line > y->line);
}

/* submit_cmp for qsort, of jobs that have no text id. */
static int by_submit(const void *a, const void *b)
{
    return submit_cmp(a, NULL, b, NULL);
}

/* A job with its recorded start, its more and its text id, sorted
 * together. */
struct job_rec {
    struct wl_job j;
    long start;
    const struct wl_more *more;
    const char *text; /* a text id's text, else NULL */
};

/* With what a --commands script's submissions have (more): at one instant
 * the trace's jobs first (queued before the script's commands run), then
 * the script's in its order, as qsub typed line after line queues them
 * (not by id: a script's ids are names, and the daemon queues by
 * submission), an array's tasks by index. */
static int by_submit_rec(const void *a, const void *b)
{
    const struct job_rec *x = a, *y = b;
    /* A trace's job with a preceding job (SWF field 17) has a more too: it
     * is still a trace's job, queued by id (it was queued after a job of
     * its instant with none). */
    int xs = x->more && x->more->script, ys = y->more && y->more->script;
    if (x->j.submit != y->j.submit || (!xs && !ys))
        return submit_cmp(&x->j, x->text, &y->j, y->text);
    if (!xs || !ys)
        return xs ? 1 : -1;
    if (x->j.line != y->j.line)
        return x->j.line < y->j.line ? -1 : 1;
    return x->more->index < y->more->index ? -1 : (x->more->index > y->more->index);
}

/* A text id's text, else NULL. */
static const char *text_of(const struct workload *wl, const struct wl_job *w)
{
    return w->id != WL_NO_ID && w->id >= WL_ID_TEXT ? wl->idtext[w->id - WL_ID_TEXT] : NULL;
}

/* Sort the jobs with their recorded starts, mores and text ids (the starts
 * and mores stay parallel; the text ids are found by index). */
static void sort_with_starts(struct workload *wl)
{
    struct job_rec *v = xmalloc(wl->njobs * sizeof *v);
    for (size_t i = 0; i < wl->njobs; i++)
        v[i] = (struct job_rec){wl->jobs[i], wl->rec_start ? wl->rec_start[i] : -1,
                                wl->more ? wl->more[i] : NULL, text_of(wl, &wl->jobs[i])};
    qsort(v, wl->njobs, sizeof *v, by_submit_rec);
    for (size_t i = 0; i < wl->njobs; i++) {
        wl->jobs[i] = v[i].j;
        if (wl->rec_start)
            wl->rec_start[i] = v[i].start;
        if (wl->more)
            wl->more[i] = v[i].more;
    }
    free(v);
}

void workload_sort(struct workload *wl)
{
    if (wl->more) { /* by_submit does not see their order */
        sort_with_starts(wl);
        return;
    }
    if (workload_in_order(wl, 0))
        return; /* a trace's jobs nearly always are */
    if (wl->rec_start || wl->nidtext)
        sort_with_starts(wl);
    else
        qsort(wl->jobs, wl->njobs, sizeof *wl->jobs, by_submit);
}

int workload_in_order(const struct workload *wl, size_t from)
{
    for (size_t i = from ? from : 1; i < wl->njobs; i++) {
        const struct wl_job *x = &wl->jobs[i - 1], *y = &wl->jobs[i];
        /* the common case, a later submit, without the call */
        if (x->submit >= y->submit && submit_cmp(x, text_of(wl, x), y, text_of(wl, y)) > 0)
            return 0;
    }
    return 1;
}

long long wl_job_procs(const struct wl_job *w)
{
    return (long long)w->tasks * w->procs_per_task;
}

void workload_init(struct workload *wl)
{
    memset(wl, 0, sizeof *wl);
    wl->unix_start = -1;
    strmap_init(&wl->strings);
}

#define ARENA_BLOCK 65536

/* Bump allocation: a trace's strings and names live as long as the
 * workload, so one malloc per 64 KB instead of one per string. align: 1 for
 * text, alignof a pointer for wl_names. */
static void *arena_alloc(struct workload *wl, size_t len, size_t align)
{
    size_t at = (wl->used + align - 1) / align * align;
    if (!wl->nblocks || at + len > ARENA_BLOCK) {
        size_t size = len > ARENA_BLOCK ? len : ARENA_BLOCK;
        wl->blocks = xgrow(wl->blocks, &wl->capblocks, wl->nblocks + 1, sizeof *wl->blocks);
        wl->blocks[wl->nblocks++] = xmalloc(size);
        at = 0;
    }
    wl->used = at + len;
    return wl->blocks[wl->nblocks - 1] + at;
}

const char *wl_job_id(const struct workload *wl, const struct wl_job *w, char *buf)
{
    return id_text(w, text_of(wl, w), buf);
}

/* The number id is the decimal text of, below WL_ID_TEXT (no sign, no
 * leading zero: its text is the id again), or WL_NO_ID. */
static uint32_t id_number(const char *id)
{
    size_t n = strspn(id, "0123456789");
    if (!n || id[n] || n > 10 || (id[0] == '0' && n > 1))
        return WL_NO_ID;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(id[i] - '0');
    return v < WL_ID_TEXT ? (uint32_t)v : WL_NO_ID;
}

/* j's id the text `kept` (the workload's copy already). */
static void add_idtext(struct workload *wl, struct wl_job *j, const char *kept)
{
    wl->idtext = xgrow(wl->idtext, &wl->capidtext, wl->nidtext + 1, sizeof *wl->idtext);
    wl->idtext[wl->nidtext] = kept;
    j->id = WL_ID_TEXT + (uint32_t)wl->nidtext++;
}

void workload_set_id(struct workload *wl, struct wl_job *j, const char *id)
{
    j->id = id ? id_number(id) : WL_NO_ID;
    if (id && j->id == WL_NO_ID)
        add_idtext(wl, j, workload_keep(wl, id));
}

const char *workload_keep(struct workload *wl, const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    return memcpy(arena_alloc(wl, len, 1), s, len);
}

static const struct wl_names no_names;

const struct wl_names *wl_job_names(const struct wl_job *w)
{
    return w->names ? w->names : &no_names;
}

/* The names' fields are interned strings: equal names have equal pointers,
 * so the pointers alone hash and compare them. */
static size_t names_hash(const struct wl_names *n)
{
    const char *const f[] = {n->user, n->group,     n->account,  n->class_,
                             n->qos,  n->partition, n->features, n->advres};
    const uint64_t v[] = {(uint64_t)n->mem, (uint64_t)n->swap, (uint64_t)n->disk,
                          (uint64_t)n->nodes << 16 | n->tpn};
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < sizeof f / sizeof *f + sizeof v / sizeof *v; i++) {
        h ^= i < sizeof f / sizeof *f ? (uint64_t)(uintptr_t)f[i] : v[i - sizeof f / sizeof *f];
        h *= 1099511628211u;
        h ^= h >> 29;
    }
    return (size_t)h;
}

static int names_equal(const struct wl_names *a, const struct wl_names *b)
{
    return a->user == b->user && a->group == b->group && a->account == b->account &&
           a->class_ == b->class_ && a->qos == b->qos && a->partition == b->partition &&
           a->features == b->features && a->advres == b->advres && a->mem == b->mem &&
           a->swap == b->swap && a->disk == b->disk && a->nodes == b->nodes && a->tpn == b->tpn;
}

/* Slot of n in the table: where it is, or the empty one where it goes. */
static size_t names_slot(const struct workload *wl, const struct wl_names *n)
{
    size_t mask = wl->capnames - 1, i = names_hash(n) & mask;
    while (wl->names[i] && !names_equal(wl->names[i], n))
        i = (i + 1) & mask;
    return i;
}

static void names_grow(struct workload *wl)
{
    const struct wl_names **old = wl->names;
    size_t oldcap = wl->capnames;
    wl->capnames = oldcap ? 2 * oldcap : 64;
    wl->names = xcalloc(wl->capnames, sizeof *wl->names);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            wl->names[names_slot(wl, old[i])] = old[i];
    free(old);
}

const struct wl_names *workload_names(struct workload *wl, const struct wl_names *n)
{
    if (names_equal(n, &no_names))
        return NULL;
    /* Compared field by field before hashing all of them. */
    if (wl->last_names && names_equal(wl->last_names, n))
        return wl->last_names;
    if (2 * (wl->nnames + 1) > wl->capnames)
        names_grow(wl);
    size_t i = names_slot(wl, n);
    if (!wl->names[i]) {
        struct wl_names *copy = arena_alloc(wl, sizeof *copy, _Alignof(struct wl_names));
        *copy = *n;
        wl->names[i] = copy;
        wl->nnames++;
    }
    return wl->last_names = wl->names[i];
}

const char *workload_intern(struct workload *wl, const char *s)
{
    if (!s)
        return NULL;
    const char *have = strmap_key(&wl->strings, s);
    if (have)
        return have;
    const char *copy = workload_keep(wl, s);
    strmap_put(&wl->strings, copy, 0);
    return copy;
}

/* workload_add where the jobs array must grow, or starts or mores are
 * kept beside it. */
static void add_grown(struct workload *wl, const struct wl_job *job)
{
    size_t cap = wl->cap;
    wl->jobs = xgrow(wl->jobs, &wl->cap, wl->njobs + 1, sizeof *wl->jobs);
    if (wl->rec_start && wl->cap != cap) /* the starts grow with the jobs */
        wl->rec_start = xrealloc(wl->rec_start, wl->cap * sizeof *wl->rec_start);
    if (wl->rec_start)
        wl->rec_start[wl->njobs] = -1;
    if (wl->more && wl->cap != cap)
        wl->more = xrealloc(wl->more, wl->cap * sizeof *wl->more);
    if (wl->more)
        wl->more[wl->njobs] = NULL;
    wl->jobs[wl->njobs++] = *job;
}

/* workload_add, inlined into a trace's loader (once a job, on the
 * streamed replay's thread): room, and nothing kept beside the jobs, is
 * every job but one in a few thousand. */
static inline void add_job(struct workload *wl, const struct wl_job *job)
{
    if (wl->njobs < wl->cap && !wl->rec_start && !wl->more)
        wl->jobs[wl->njobs++] = *job;
    else
        add_grown(wl, job);
}

void workload_add(struct workload *wl, const struct wl_job *job)
{
    add_job(wl, job);
}

/* A copy of more in the arena. */
static const struct wl_more *keep_more(struct workload *wl, const struct wl_more *more)
{
    struct wl_more *m = arena_alloc(wl, sizeof *m, _Alignof(struct wl_more));
    *m = *more;
    return m;
}

/* Job i's more: m, the workload's already. The first such call keeps a
 * more for every job. */
static void put_more(struct workload *wl, size_t i, const struct wl_more *m)
{
    if (!wl->more)
        wl->more = xcalloc(wl->cap ? wl->cap : 1, sizeof *wl->more);
    wl->more[i] = m;
}

void workload_add_more(struct workload *wl, const struct wl_job *job, const struct wl_more *more)
{
    workload_add(wl, job);
    put_more(wl, wl->njobs - 1, keep_more(wl, more));
}

void workload_add_recorded(struct workload *wl, const struct wl_job *job, long start)
{
    if (!wl->rec_start) {
        wl->rec_start = xmalloc((wl->cap ? wl->cap : 1) * sizeof *wl->rec_start);
        for (size_t i = 0; i < wl->njobs; i++)
            wl->rec_start[i] = -1;
    }
    workload_add(wl, job);
    wl->rec_start[wl->njobs - 1] = start;
}

/* Places in swf_load's memo of names: a trace has a few hundred (user,
 * group, queue) numbers, and most lines repeat a recent one. */
#define NAMES_MEMO 256

/* workload_read_swf's state between records. */
struct swf_load;
static void skip_id(struct swf_load *ld, long long id);
struct swf_load {
    struct workload *wl;
    const char *path;
    int strict;
    int recorded;         /* keep the log's starts (WL_RECORDED) */
    struct swfpack *recs; /* keep every record here (WL_KEEP_RECS; load_prep's), or NULL */
    struct err unusable;  /* strict: the first record that cannot be replayed */
    int have_unusable;
    int deps;              /* replay fields 17/18 (not WL_NO_DEPS) */
    struct strmap skipped; /* ids of the skipped records, when deps: a job */
    char **skipped_ids;    /* waiting for one of them waits for nothing */
    size_t nskipped_ids;
    void (*batch)(void *ctx, struct workload *wl, int in_order); /* workload_read_swf_batched's */
    void *ctx;
    int in_order;         /* the jobs added so far are in submission order (workload_in_order's) */
    uint32_t last_submit; /* the submit time of the last job added (0 before the first) */
    /* The interned names of (user, group, queue) numbers seen (load_names),
     * one at each place: the parser's thread's, as wl's names are. */
    struct names_memo {
        long long user, group, queue;
        const struct wl_names *names;
        int set;
    } memo[NAMES_MEMO];
};

/* The names of r's user, group and queue numbers, interned in wl: the
 * same pointer as workload_names gives, without its three look-ups of
 * numbers and the hash of the triple when the memo holds the numbers (a
 * name is interned when it is first met, which still goes there). */
static const struct wl_names *load_names(struct swf_load *ld, const struct swf_rec *r)
{
    unsigned long long h = (unsigned long long)r->user + 7 * (unsigned long long)r->group +
                           131 * (unsigned long long)r->queue;
    struct names_memo *m = &ld->memo[h % NAMES_MEMO];
    if (m->set && m->user == r->user && m->group == r->group && m->queue == r->queue)
        return m->names;
    struct workload *wl = ld->wl;
    const struct wl_names *n =
        workload_names(wl, &(struct wl_names){.user = num_name(wl, r->user),
                                              .group = num_name(wl, r->group),
                                              .class_ = num_name(wl, r->queue)});
    *m = (struct names_memo){r->user, r->group, r->queue, n, 1};
    return n;
}

/*
 * A record's job as far as it does not depend on the jobs before it, made
 * on the parser's thread (swf_stages.prep) while the caller's replays the
 * jobs before it: its names are interned there, and so is every text of
 * the arena, which the caller's thread then only reads (wl's strings,
 * names and arena are the parser's until the scan ends; the jobs, more and
 * id arrays are the caller's).
 */
struct load_prep {
    struct wl_job job;
    const char *why;            /* unusable(), or NULL */
    const char *idtext;         /* job_of's text id, or NULL */
    const struct wl_more *more; /* the preceding job (field 17), or NULL */
    int fits;                   /* swf_fits: else the caller says why */
};

static void load_prep(void *ctx, const struct swf_rec *r, void *out)
{
    struct swf_load *ld = ctx;
    struct load_prep *p = out;
    /* Every record is kept (--swf-out) here, on the parser's thread: its
     * text is read where the parser has it, never copied for load_rec
     * (the pack is the parser's until the scan ends). */
    if (ld->recs)
        swfpack_add(ld->recs, r);
    /* p->job is made only for a job load_rec adds (why NULL, fits), the
     * only one that reads it: not zeroed first. */
    p->why = unusable(r);
    p->idtext = NULL;
    p->more = NULL;
    p->fits = 0;
    if (p->why)
        return;
    p->fits = swf_fits(r, r->req_procs > 0 ? r->req_procs : r->alloc, ld->path, NULL) == 0;
    if (!p->fits)
        return;
    job_of(&p->job, ld->wl, r, load_names(ld, r), &p->idtext);
    if (ld->deps && r->prev_job > 0) /* few jobs: beside the record, not in it */
        p->more = keep_more(
            ld->wl,
            &(struct wl_more){.after = workload_keep(ld->wl, decimal((char[24]){0}, r->prev_job))});
}

/* The job just added comes after the one before it in submission order:
 * the batch callback's in_order, kept as the jobs come rather than by
 * workload_in_order over each batch on the streamed replay's thread. */
static inline int after_last(const struct workload *wl)
{
    if (wl->njobs < 2)
        return 1;
    const struct wl_job *x = &wl->jobs[wl->njobs - 2], *y = &wl->jobs[wl->njobs - 1];
    return x->submit < y->submit || submit_cmp(x, text_of(wl, x), y, text_of(wl, y)) <= 0;
}

/* The record's job, made by load_prep, into the workload (or skipped). */
static int load_rec(void *ctx, const struct swf_rec *r, void *out, struct err *err)
{
    struct swf_load *ld = ctx;
    struct load_prep *p = out;
    if (!p->why) {
        if (!p->fits)
            return swf_fits(r, r->req_procs > 0 ? r->req_procs : r->alloc, ld->path, err);
        if (p->idtext)
            add_idtext(ld->wl, &p->job, p->idtext);
        /* The log's own schedule: submit + wait (field 3), when known; kept
         * only when asked, as it costs 8 bytes a job of every replay. */
        if (ld->recorded)
            workload_add_recorded(ld->wl, &p->job, r->wait >= 0 ? (long)(r->submit + r->wait) : -1);
        else
            add_job(ld->wl, &p->job);
        /* A later submit time than the last job's: in order, nearly
         * always, without a look at the jobs array. */
        if (p->job.submit <= ld->last_submit && ld->in_order)
            ld->in_order = after_last(ld->wl);
        ld->last_submit = p->job.submit;
        if (p->more)
            put_more(ld->wl, ld->wl->njobs - 1, p->more);
    } else if (ld->strict && !ld->have_unusable) {
        err_set(&ld->unusable, "%s:%ld: job %lld cannot be replayed: %s", ld->path, r->line, r->id,
                p->why);
        ld->have_unusable = 1;
    } else {
        ld->wl->skipped++;
        if (ld->deps && r->id >= 0)
            skip_id(ld, r->id);
    }
    return 0;
}

static void skip_id(struct swf_load *ld, long long id)
{
    char buf[24];
    decimal(buf, id);
    if (strmap_get(&ld->skipped, buf, &(size_t){0}))
        return;
    ld->skipped_ids = xrealloc(ld->skipped_ids, (ld->nskipped_ids + 1) * sizeof *ld->skipped_ids);
    char *k = ld->skipped_ids[ld->nskipped_ids++] = xstrdup(buf);
    strmap_put(&ld->skipped, k, 1);
}

/*
 * Check the sorted jobs' SWF dependencies (field 17): the preceding job must
 * be a job of the trace queued before this one (submission order, which
 * also rules out a cycle); one waiting for a skipped record waits for
 * nothing, as afterany on a job that never ran is met.
 */
static int resolve_deps(struct swf_load *ld, struct err *err)
{
    struct workload *wl = ld->wl;
    struct strmap pos;
    strmap_init(&pos);
    /* The map borrows its keys: the numeric ids' texts live here. */
    char(*text)[WL_ID_LEN] = xmalloc(wl->njobs * sizeof *text);
    int rc = 0;
    for (size_t i = 0; i < wl->njobs && rc == 0; i++) {
        const struct wl_job *j = &wl->jobs[i];
        const char *after = wl->more && wl->more[i] ? wl->more[i]->after : NULL;
        size_t at;
        if (after && !strmap_get(&pos, after, &at)) {
            if (strmap_get(&ld->skipped, after, &at)) {
                wl->more[i] = NULL; /* an SWF job's more is its preceding job alone */
                after = NULL;
            } else {
                int later = 0;
                for (size_t k = i; k < wl->njobs && !later; k++) {
                    const char *id = wl_job_id(wl, &wl->jobs[k], text[k]);
                    later = id && strcmp(id, after) == 0;
                }
                rc = err_set(err,
                             "%s:%ld: field 17 (preceding job number): job %s %s (--no-swf-deps "
                             "ignores fields 17 and 18)",
                             ld->path, (long)j->line, after,
                             later ? "is not queued before this job (a later submission, itself, "
                                     "or a cycle)"
                                   : "is not in the trace");
            }
        }
        wl->ndeps += after != NULL;
        const char *id = wl_job_id(wl, j, text[i]);
        if (id && !strmap_get(&pos, id, &at))
            strmap_put(&pos, id, i);
    }
    strmap_free(&pos);
    free(text);
    return rc;
}

/* The header keywords into wl. */
static void set_header(struct workload *wl, const struct swf_header *hdr)
{
    wl->max_nodes = hdr->max_nodes;
    wl->max_procs = hdr->max_procs;
    wl->unix_start = hdr->unix_start;
    memcpy(wl->tz, hdr->tz, sizeof wl->tz);
}

/* A batch of records went in: the caller sees the workload so far. */
static void load_batch(void *ctx, const struct swf_header *hdr)
{
    struct swf_load *ld = ctx;
    set_header(ld->wl, hdr);
    ld->batch(ld->ctx, ld->wl, ld->in_order);
}

static void swf_load_free(struct swf_load *ld)
{
    for (size_t i = 0; i < ld->nskipped_ids; i++)
        free(ld->skipped_ids[i]);
    free(ld->skipped_ids);
    strmap_free(&ld->skipped);
}

int workload_read_swf(const char *path, int flags, struct workload *wl, struct err *err)
{
    return workload_read_swf_batched(path, flags, wl, NULL, NULL, err);
}

int workload_read_swf_batched(const char *path, int flags, struct workload *wl,
                              void (*batch)(void *ctx, struct workload *wl, int in_order),
                              void *ctx, struct err *err)
{
    workload_init(wl);
    struct swf_load ld = {.wl = wl,
                          .path = path,
                          .strict = (flags & WL_STRICT) != 0,
                          .recorded = (flags & WL_RECORDED) != 0,
                          .deps = (flags & WL_NO_DEPS) == 0,
                          .batch = batch,
                          .ctx = ctx,
                          .in_order = 1};
    if (flags & WL_KEEP_RECS)
        ld.recs = wl->recs = xcalloc(1, sizeof *wl->recs);
    strmap_init(&ld.skipped);
    struct swf_header hdr;
    /* The lines' texts only for the records kept (--swf-out writes them),
     * and for load_prep alone, which keeps them. */
    struct swf_stages st = {.prep = load_prep,
                            .size = sizeof(struct load_prep),
                            .prep_texts = true,
                            .each = load_rec,
                            .batch = batch ? load_batch : NULL,
                            .ctx = &ld};
    int bad = swf_scan_staged(path, &hdr, &st, ld.recs != NULL, err) < 0;
    if (!bad && ld.have_unusable) { /* the syntax of the whole file comes first */
        bad = 1;
        if (err)
            *err = ld.unusable;
    }
    if (!bad) {
        /* Lines out of submit order exist in real logs (LLNL Thunder).
         * Jobs seen in order as they came need no second look
         * (workload_sort's own test, on a streamed replay's thread). */
        if (!ld.in_order || wl->more)
            workload_sort(wl);
        /* No job names a preceding one (wl->more is made by the first
         * that does): nothing to check, and no map of every job id. */
        bad = ld.deps && wl->more && resolve_deps(&ld, err ? err : &(struct err){0}) < 0;
    }
    swf_load_free(&ld);
    if (bad) {
        workload_free(wl);
        return -1;
    }
    /* Give back the doubling slack. */
    if (wl->njobs && wl->njobs < wl->cap) {
        wl->jobs = xrealloc(wl->jobs, wl->njobs * sizeof *wl->jobs);
        if (wl->rec_start)
            wl->rec_start = xrealloc(wl->rec_start, wl->njobs * sizeof *wl->rec_start);
        if (wl->more)
            wl->more = xrealloc(wl->more, wl->njobs * sizeof *wl->more);
        wl->cap = wl->njobs;
    }
    if (wl->recs)
        swfpack_trim(wl->recs);
    set_header(wl, &hdr);
    return 0;
}

void workload_free(struct workload *wl)
{
    free(wl->jobs);
    free(wl->rec_start);
    free(wl->more);
    free(wl->names);
    free(wl->numnames);
    free(wl->idtext);
    if (wl->recs)
        swfpack_free(wl->recs);
    free(wl->recs);
    for (size_t i = 0; i < wl->nblocks; i++)
        free(wl->blocks[i]);
    free(wl->blocks);
    if (wl->strings.keys)
        strmap_free(&wl->strings);
    memset(wl, 0, sizeof *wl);
}
