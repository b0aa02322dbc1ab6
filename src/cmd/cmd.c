/*
 * cmd — the helpers every command handler uses: the text buffer, Maui's
 * duration and date formats, JSON output, and a few facts about jobs and
 * the cluster. They stand below the handlers and call none of them; the
 * dispatcher (cmdrun.c) and the table (cmdtab.c) stand above (issue 29).
 */
#include "cmd/cmd_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/mem.h"

/* ---- text buffer ---- */

static void buf_reserve(struct cmd_buf *b, size_t more)
{
    if (b->len + more + 1 > b->cap)
        b->s = xgrow(b->s, &b->cap, b->len + more + 1, 1);
}

void cmd_buf_puts(struct cmd_buf *b, const char *s)
{
    size_t n = strlen(s);
    buf_reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void cmd_buf_printf(struct cmd_buf *b, const char *fmt, ...)
{
    /* Formatted once into the room there is; a second time only when it
     * did not fit (showq of 100,000 jobs is 100,000 of these). */
    buf_reserve(b, 255);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n <= 0) {
        b->s[b->len] = '\0';
        return;
    }
    if ((size_t)n >= b->cap - b->len) {
        buf_reserve(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

void cmd_buf_row(struct cmd_buf *b, const struct cmd_col *cols, size_t n)
{
    size_t lens[CMD_ROW_MAX], need = 1;
    n = n < CMD_ROW_MAX ? n : CMD_ROW_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t w = (size_t)(cols[i].width < 0 ? -cols[i].width : cols[i].width);
        lens[i] = strlen(cols[i].s);
        need += (size_t)cols[i].gap + (lens[i] > w ? lens[i] : w);
    }
    buf_reserve(b, need);
    char *p = b->s + b->len;
    for (size_t i = 0; i < n; i++) {
        size_t w = (size_t)(cols[i].width < 0 ? -cols[i].width : cols[i].width);
        size_t pad = lens[i] < w ? w - lens[i] : 0;
        memset(p, ' ', (size_t)cols[i].gap);
        p += cols[i].gap;
        if (cols[i].width > 0)
            memset(p, ' ', pad), p += pad;
        memcpy(p, cols[i].s, lens[i]);
        p += lens[i];
        if (cols[i].width < 0)
            memset(p, ' ', pad), p += pad;
    }
    *p++ = '\n';
    *p = '\0';
    b->len = (size_t)(p - b->s);
}

char *cmd_buf_take(struct cmd_buf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    *b = (struct cmd_buf){0};
    return s;
}

/* ---- times ---- */

/* Digits of v (>= 0) at p, at least min of them (zero-padded); the end. */
static char *put_num(char *p, long v, int min)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n < min)
        tmp[n++] = '0';
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

void cmd_fmt_duration(long secs, char out[CMD_TIME_MAX])
{
    /* Maui's bounds: 100 days up, 10 days down (MAX_MTIME-like sentinels). */
    if (secs >= 8640000L) {
        snprintf(out, CMD_TIME_MAX, "  INFINITY");
        return;
    }
    if (secs <= -864000L) {
        snprintf(out, CMD_TIME_MAX, " -INFINITY");
        return;
    }
    /* Written digit by digit, not by snprintf: showq prints one for each of
     * 100,000 jobs. [-][D:]HH:MM:SS, hours unpadded below 10 with no days,
     * 00:MM:SS under an hour. */
    long a = secs < 0 ? -secs : secs;
    long s = a % 60, m = a / 60 % 60, hours = a / 3600, d = hours / 24, h = hours % 24;
    char *p = out;
    if (secs < 0)
        *p++ = '-';
    if (d > 0) {
        p = put_num(p, d, 1);
        *p++ = ':';
        p = put_num(p, h, 2);
    } else {
        p = put_num(p, h, hours >= 1 && hours < 10 ? 1 : 2);
    }
    *p++ = ':';
    p = put_num(p, m, 2);
    *p++ = ':';
    p = put_num(p, s, 2);
    *p = '\0';
}

long cmd_epoch(const struct cmd_ctx *c, long t)
{
    return t + c->epoch_offset;
}

long cmd_prio_shown(double priority)
{
    return (long)priority;
}

/* ---- the clock ---- */

static int clock_local; /* cmd_use_local_time */

void cmd_use_local_time(int on)
{
    clock_local = on;
    if (on)
        tzset();
}

int cmd_clock_tm(long epoch, struct tm *tm)
{
    time_t tt = (time_t)epoch;
    return (clock_local ? localtime_r(&tt, tm) : gmtime_r(&tt, tm)) ? 0 : -1;
}

/* Whether name is a zone this machine has (a file under its zoneinfo). */
static int zone_known(const char *name)
{
    char path[160];
    if (!*name || name[0] == '/' || strstr(name, "..") ||
        snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", name) >= (int)sizeof path)
        return 0;
    return access(path, R_OK) == 0;
}

/* The local zone's IANA name: TZ's (":Asia/Kolkata" or "Asia/Kolkata"), else
 * the zoneinfo file /etc/localtime links to, else /etc/timezone; "" when
 * none names one (a POSIX TZ string like "IST-5:30" has no name). */
static void local_zone_name(char *out, size_t n)
{
    const char *tz = getenv("TZ");
    out[0] = '\0';
    if (tz) {
        if (*tz == ':')
            tz++;
        if (zone_known(tz))
            snprintf(out, n, "%.63s", tz);
        return;
    }
    char link[256];
    ssize_t len = readlink("/etc/localtime", link, sizeof link - 1);
    const char *at = NULL;
    if (len > 0) {
        link[len] = '\0';
        at = strstr(link, "zoneinfo/");
    }
    if (at && zone_known(at + 9)) {
        snprintf(out, n, "%.63s", at + 9);
        return;
    }
    FILE *f = fopen("/etc/timezone", "r");
    if (f) {
        char line[128];
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, " \t\r\n")] = '\0';
            if (zone_known(line))
                snprintf(out, n, "%.63s", line);
        }
        fclose(f);
    }
}

void cmd_clock_zone(long epoch, struct cmd_zone *z)
{
    *z = (struct cmd_zone){.name = "UTC", .abbrev = "UTC", .offset = 0};
    struct tm tm;
    if (!clock_local || cmd_clock_tm(epoch, &tm) < 0)
        return;
    local_zone_name(z->name, sizeof z->name);
    snprintf(z->abbrev, sizeof z->abbrev, "%s", tm.tm_zone ? tm.tm_zone : "");
    z->offset = tm.tm_gmtoff;
}

void cmd_fmt_date(const struct cmd_ctx *c, long t, char out[CMD_TIME_MAX])
{
    /* Names spelled out rather than strftime("%a %b"): no locale can change
     * them. On the clock of cmd_use_local_time: UTC unless the driver asks
     * for local time. */
    static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct tm tm;
    if (cmd_clock_tm(cmd_epoch(c, t), &tm) < 0 || tm.tm_wday < 0 || tm.tm_wday > 6 ||
        tm.tm_mon < 0 || tm.tm_mon > 11) {
        snprintf(out, CMD_TIME_MAX, "%19s", "-");
        return;
    }
    /* "Www Mmm dd hh:mm:ss" (the day space-padded), digit by digit. */
    char *p = out;
    memcpy(p, wday[tm.tm_wday], 3);
    p[3] = ' ';
    memcpy(p + 4, mon[tm.tm_mon], 3);
    p[7] = ' ';
    p += 8;
    if (tm.tm_mday < 10)
        *p++ = ' ';
    p = put_num(p, tm.tm_mday, 1);
    *p++ = ' ';
    p = put_num(p, tm.tm_hour, 2);
    *p++ = ':';
    p = put_num(p, tm.tm_min, 2);
    *p++ = ':';
    p = put_num(p, tm.tm_sec, 2);
    *p = '\0';
}

/* ---- JSON ---- */

void cmd_json_out(struct cmd_buf *out, json_t *root)
{
    /* 15 significant digits: exact for every value a command shows, and
     * 0.8 prints as 0.8 rather than its binary neighbour 0.80000000000000004. */
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (!s) {
        cmd_buf_puts(out, "null\n"); /* only on out-of-memory inside jansson */
        return;
    }
    cmd_buf_puts(out, s);
    cmd_buf_puts(out, "\n");
    free(s);
}

json_t *cmd_jstr(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    /* Not UTF-8 (a name or value written in another encoding): keep the
     * ASCII, mark the rest, rather than lose the field. */
    char *t = xstrdup(s);
    for (char *p = t; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    v = json_string(t);
    free(t);
    return v ? v : json_null();
}

/* ---- jobs and cluster ---- */

int cmd_job_reserved(const struct job *j)
{
    return j->state == JOB_IDLE && (j->flags & JOB_RESERVED) && j->resv_start >= 0;
}

/* For a job that names its hosts: the first of them that is down or
 * drained, said so; NULL when every one is up. */
static const char *host_not_up(const struct cmd_ctx *c, const struct job *j, char *buf, size_t n)
{
    for (size_t k = 0; k < j->nhosts; k++) {
        const struct node *nd = sched_node(c->s, j->hosts[k].node);
        if (nd && nd->state != NODE_UP) {
            snprintf(buf, n, "host %s it asks for is %s", nd->name, node_state_name(nd->state));
            return buf;
        }
    }
    return NULL;
}

const char *cmd_wait_reason(const struct cmd_ctx *c, const struct job *j, char *buf, size_t n)
{
    if (j->state != JOB_IDLE)
        return NULL;
    const char *blocked = sched_job_blocked(c->s, j);
    if (blocked)
        return blocked;
    /* A job that names a reservation runs only there: one that refuses it
     * is why it waits, whatever else the plan says. */
    const char *refused = sched_job_advres_refused(c->s, j, buf, n);
    if (refused)
        return refused;
    enum job_wait w = sched_job_wait(c->s, j);
    if (w != WAIT_NONE && w != WAIT_POLICY && w != WAIT_REJECTED && w != WAIT_PRIORITY) {
        const char *down = host_not_up(c, j, buf, n); /* what the job waits for by name */
        if (down)
            return down;
    }
    /* Not "would delay a reservation": no reservation can be made for a
     * job no set of nodes it may use holds (a node table that changed
     * under a queued job; the daemon refuses such a job at submission). */
    if ((w == WAIT_DELAYS || w == WAIT_RESOURCES) &&
        sched_earliest_start(c->s, j, c->now) >= SCHED_NEVER)
        return "the nodes it may use can never hold it";
    switch (w) {
    case WAIT_RESERVED:
        if (j->resv_start >= 0) {
            char date[CMD_TIME_MAX];
            cmd_fmt_date(c, j->resv_start, date);
            snprintf(buf, n, "reserved to start at %s", date);
            return buf;
        }
        return "insufficient idle processors";
    case WAIT_RESOURCES:
        return "insufficient idle processors";
    case WAIT_DELAYS:
        return "starting now would delay a higher-priority reservation";
    case WAIT_PRIORITY:
        return "a higher-priority job is waiting (BACKFILLPOLICY NONE)";
    case WAIT_REJECTED:
        return "negative priority (REJECTNEGPRIOJOBS)";
    case WAIT_POLICY:
        return "starting now would exceed an active policy limit";
    case WAIT_NONE:
        break;
    }
    return "not yet considered by a scheduling iteration";
}

const char *cmd_reason_tail(const struct job *j, const char *reason)
{
    size_t n = strlen(j->name);
    if (strncmp(reason, "job ", 4) == 0 && strncmp(reason + 4, j->name, n) == 0 &&
        reason[4 + n] == ' ') {
        const char *t = reason + 4 + n;
        while (*t == ' ')
            t++;
        if (*t)
            return t;
    }
    return reason;
}

void cmd_usage(const struct sched *s, struct cmd_usage *u)
{
    *u = (struct cmd_usage){.up_procs = sched_up_procs(s)};
    for (size_t i = 0; i < sched_nnodes(s); i++) {
        if (sched_node(s, i)->state != NODE_UP)
            continue;
        int used = sched_node_used(s, i);
        u->up_nodes++;
        u->busy_procs += used;
        u->busy_nodes += used > 0;
    }
    if (u->busy_procs > u->up_procs)
        u->busy_procs = u->up_procs; /* as Maui: MIN(UpProcs, BusyProcs) */
}

long cmd_stats_since(const struct cmd_ctx *c)
{
    if (c->stats_since > 0)
        return c->stats_since < c->now ? c->stats_since : c->now;
    long since = c->now;
    int any = 0;
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j)
            continue;
        if (!any || j->submit < since)
            since = j->submit;
        any = 1;
    }
    if (!any && sched_stats(c->s)->iterations > 0)
        since = sched_last_iteration(c->s);
    return since < c->now ? since : c->now;
}

int cmd_stats_before(const struct job *j, long since)
{
    return (j->state == JOB_COMPLETED || j->state == JOB_REMOVED) && j->end < since;
}

int cmd_stats_completed(const struct job *j, long since)
{
    return j->state == JOB_COMPLETED && j->start >= j->submit && j->end >= since;
}

const char *cmd_word(const char *w)
{
    /* Messages quote what the user typed; a 10 kB word would bury them. */
    static _Thread_local char clip[72];
    if (strlen(w) < sizeof clip)
        return w;
    snprintf(clip, sizeof clip, "%.64s...", w);
    return clip;
}

long long cmd_job_mem_on(const struct job *j, size_t idx)
{
    long long m = 0;
    for (size_t i = 0; i < j->nslots; i++) {
        const struct job_slot *sl = &j->slots[i];
        if (idx >= sl->node && idx - sl->node < sl->nnodes)
            m += sl->mem;
    }
    return m;
}

long long cmd_job_procs_on(const struct job *j, size_t idx)
{
    long long p = 0;
    for (size_t i = 0; i < j->nslots; i++) {
        const struct job_slot *sl = &j->slots[i];
        if (idx >= sl->node && idx - sl->node < sl->nnodes)
            p += sl->procs;
    }
    return p;
}
