/*
 * srtime — the time windows of a standing reservation. See srtime.h for the
 * semantics and the Admin Guide facts they rest on.
 *
 * The computation works on calendar days of a zone: `struct zday` is the day
 * that contains `now`, and zone_time() turns "that day + n days, at hh:mm:ss
 * wall time" into epoch seconds. For the local zone that is mktime() with
 * tm_isdst = -1, so the wall time is kept across DST changes; for a fixed
 * offset it is plain arithmetic. Nothing here reads or changes TZ itself:
 * localtime_r()/mktime() use whatever zone the process has.
 */
#include "policy/srtime.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cfg/cfg.h"

#define DAY_SECS 86400L
#define WEEK_SECS (7 * DAY_SECS)

_Static_assert(SRTIME_FOREVER == CFG_TIME_INFINITY, "INFINITY ends at Maui's MAX_MTIME");

static const char *const day_abbr[7] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
static const char *const day_full[7] = {"SUNDAY",   "MONDAY", "TUESDAY", "WEDNESDAY",
                                        "THURSDAY", "FRIDAY", "SATURDAY"};

void srtime_spec_default(struct srtime_spec *spec)
{
    spec->period = SRTIME_DAY;
    spec->days = SRTIME_ALLDAYS;
    spec->by_day = 0;
    spec->start = 0;
    spec->end = DAY_SECS;
    spec->depth = 2; /* Admin Guide: DEPTH default 2 ("today and tomorrow") */
}

/* ------------------------------------------------------------------ parsing */

static int parse_period(const char *s, enum srtime_period *out, struct err *err)
{
    if (strcasecmp(s, "DAY") == 0)
        *out = SRTIME_DAY;
    else if (strcasecmp(s, "WEEK") == 0)
        *out = SRTIME_WEEK;
    else if (strcasecmp(s, "INFINITY") == 0 || strcasecmp(s, "INFINITE") == 0)
        *out = SRTIME_INFINITY;
    else
        return err_set(err, "PERIOD '%s' is not DAY, WEEK or INFINITY", s);
    return 0;
}

/* One DAYS token (length n, not NUL-terminated): its weekday bits, or 0. */
static unsigned day_bits(const char *tok, size_t n)
{
    if (n >= 2 && tok[0] == '[' && tok[n - 1] == ']') { /* the Guide writes [ALL] */
        tok++;
        n -= 2;
    }
    if (n == 3 && strncasecmp(tok, "ALL", 3) == 0)
        return SRTIME_ALLDAYS;
    for (int d = 0; d < 7; d++) {
        if ((n == 3 && strncasecmp(tok, day_abbr[d], 3) == 0) ||
            (n == strlen(day_full[d]) && strncasecmp(tok, day_full[d], n) == 0))
            return 1u << d;
    }
    return 0;
}

/*
 * DAYS: SRCFG writes a comma list (DAYS=MON,TUE), the legacy SRDAYS a blank
 * list (Mon Tue); ACL-style '|' and ':' are taken too. Maui 3.3.1 tests each
 * token for a day-name substring and silently ignores what it does not
 * recognise; moku names the unknown token instead.
 */
static int parse_days(const char *s, unsigned *out, struct err *err)
{
    static const char sep[] = ",|: \t";
    unsigned mask = 0;
    for (const char *p = s + strspn(s, sep); *p; p += strspn(p, sep)) {
        size_t n = strcspn(p, sep);
        unsigned bits = day_bits(p, n);
        if (!bits)
            return err_set(err,
                           "DAYS '%s': unknown day '%.*s' (expected Sun..Sat, Monday.. or ALL)", s,
                           (int)n, p);
        mask |= bits;
        p += n;
    }
    if (!mask)
        return err_set(err, "DAYS '%s' names no day", s);
    *out = mask;
    return 0;
}

/*
 * STARTTIME/ENDTIME: an offset into the period. `len` is the period length;
 * a start lies in [0, len), an end in [0, len] with 0 meaning len (Maui reads
 * an unset or zero end as the end of the period).
 */
static int parse_offset(const char *attr, const char *s, long len, int is_end, long *out,
                        struct err *err)
{
    long v = 0;
    if (cfg_parse_time(s, &v, NULL) < 0)
        return err_set(err, "%s '%s' is not a time ([[[DD:]HH:]MM:]SS)", attr, s);
    long max = is_end ? len : len - 1;
    if (v < 0 || v > max) {
        const char *what = len == DAY_SECS ? "day" : "week";
        const char *range = len == DAY_SECS ? (is_end ? "24:00:00" : "23:59:59")
                                            : (is_end ? "7:00:00:00" : "6:23:59:59");
        return err_set(err, "%s '%s' is not within the %s (0 to %s)", attr, s, what, range);
    }
    *out = is_end && v == 0 ? len : v;
    return 0;
}

static int parse_depth(const char *s, int *out, struct err *err)
{
    long long v = 0;
    if (cfg_parse_int(s, 1, SRTIME_DEPTH_MAX, &v, NULL) < 0)
        return err_set(err, "DEPTH '%s' is not an integer from 1 to %d", s, SRTIME_DEPTH_MAX);
    *out = (int)v;
    return 0;
}

/* An offset refused as a time of day under PERIOD=WEEK with DAYS: say why
 * (a week offset such as 2:08:00:00 and DAYS together are ambiguous). */
static int by_day_hint(const struct srtime_spec *s, struct err *err)
{
    if (s->by_day && err) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n,
                 "; with PERIOD=WEEK and DAYS it is a time of day on each day listed");
    }
    return -1;
}

int srtime_parse(struct srtime_spec *spec, const char *period, const char *days,
                 const char *starttime, const char *endtime, const char *depth, struct err *err)
{
    struct srtime_spec s;
    srtime_spec_default(&s);
    if (period && parse_period(period, &s.period, err) < 0)
        return -1;
    if (days && parse_days(days, &s.days, err) < 0)
        return -1;
    /* WEEK with DAYS naming days: those days of each week (DAYS=ALL keeps
     * the one weekly window of the offsets). */
    s.by_day = s.period == SRTIME_WEEK && days && s.days != SRTIME_ALLDAYS;
    /* INFINITY has no offsets ("no need to specify STARTTIME, ENDTIME or
     * DAYS"); given ones are only checked as week offsets, then unused. */
    long len = s.period == SRTIME_DAY || s.by_day ? DAY_SECS : WEEK_SECS;
    s.end = len;
    if (starttime && parse_offset("STARTTIME", starttime, len, 0, &s.start, err) < 0)
        return by_day_hint(&s, err);
    if (endtime && parse_offset("ENDTIME", endtime, len, 1, &s.end, err) < 0)
        return by_day_hint(&s, err);
    if (depth && parse_depth(depth, &s.depth, err) < 0)
        return -1;
    *spec = s;
    return 0;
}

/* -------------------------------------------------------------- the calendar */

/* A calendar day of a zone: the day that contains some instant. */
struct zday {
    struct tm tm; /* local zone: that day (time of day zeroed) */
    long dn;      /* fixed zone: days since 1970-01-01 in the zone */
    int wday;     /* 0 = Sunday */
};

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void zone_day(const struct srtime_zone *z, long t, struct zday *d)
{
    memset(d, 0, sizeof *d);
    if (z->local) {
        time_t tt = (time_t)t;
        localtime_r(&tt, &d->tm);
        d->tm.tm_hour = d->tm.tm_min = d->tm.tm_sec = 0;
        d->wday = d->tm.tm_wday;
    } else {
        d->dn = floor_div(t + z->offset, DAY_SECS);
        d->wday = (int)(((d->dn + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
    }
}

/* The instant of wall time `secs` (may exceed a day) on day d + add_days. */
static long zone_time(const struct srtime_zone *z, const struct zday *d, long add_days, long secs)
{
    add_days += secs / DAY_SECS;
    secs %= DAY_SECS;
    if (!z->local)
        return (d->dn + add_days) * DAY_SECS + secs - z->offset;
    struct tm tm = d->tm;
    tm.tm_mday += (int)add_days; /* mktime normalises across months and years */
    tm.tm_hour = (int)(secs / 3600);
    tm.tm_min = (int)(secs / 60 % 60);
    tm.tm_sec = (int)(secs % 60);
    tm.tm_isdst = -1; /* wall time: let mktime pick standard or daylight time */
    return (long)mktime(&tm);
}

/* ---------------------------------------------------------------- instances */

/* PERIOD=WEEK with DAYS: a window on each selected day of this week and
 * the depth-1 after it (and one that began the day before the week and
 * runs into it, while it lasts), times of day as for DAY. */
static size_t week_days(const struct srtime_spec *spec, const struct srtime_zone *zone, long now,
                        struct srtime_window *out, size_t max)
{
    size_t n = 0;
    struct zday today;
    zone_day(zone, now, &today);
    long first = -today.wday; /* this week's Sunday */
    long end = spec->end < spec->start ? spec->end + DAY_SECS : spec->end;
    for (long base = first - 1; base < first + 7L * spec->depth; base++) {
        int wday = (int)(((today.wday + base) % 7 + 7) % 7);
        if (!(spec->days & (1u << wday)))
            continue;
        long s = zone_time(zone, &today, base, spec->start);
        long e = zone_time(zone, &today, base, end);
        if (e <= now || e <= s)
            continue;
        if (n < max)
            out[n] = (struct srtime_window){s, e};
        n++;
    }
    return n;
}

long srtime_next_period(const struct srtime_spec *spec, const struct srtime_zone *zone, long now)
{
    if (spec->period == SRTIME_INFINITY)
        return SRTIME_FOREVER;
    struct zday today;
    zone_day(zone, now, &today);
    return zone_time(zone, &today, spec->period == SRTIME_WEEK ? 7 - today.wday : 1, 0);
}

size_t srtime_instances(const struct srtime_spec *spec, const struct srtime_zone *zone, long now,
                        struct srtime_window *out, size_t max)
{
    size_t n = 0;
    if (spec->period == SRTIME_INFINITY) {
        /* Maui: a single instance from now to MAX_MTIME. */
        if (now < SRTIME_FOREVER && max > 0)
            out[0] = (struct srtime_window){now, SRTIME_FOREVER};
        return now < SRTIME_FOREVER ? 1 : 0;
    }
    if (spec->period == SRTIME_WEEK && spec->by_day)
        return week_days(spec, zone, now, out, max);
    int week = spec->period == SRTIME_WEEK;
    long pdays = week ? 7 : 1;
    struct zday today;
    zone_day(zone, now, &today);
    long first = week ? -today.wday : 0; /* day offset of the current period's start */
    /* An end before the start runs into the next period (moku extension). */
    long end = spec->end < spec->start ? spec->end + pdays * DAY_SECS : spec->end;

    /* Period -1 only matters for a window that runs into the current period
     * and has not ended; then periods 0..depth-1. */
    for (long k = -1; k < spec->depth; k++) {
        long base = first + k * pdays;
        int wday = (int)(((today.wday + base) % 7 + 7) % 7);
        if (!week && !(spec->days & (1u << wday)))
            continue;
        long s = zone_time(zone, &today, base, spec->start);
        long e = zone_time(zone, &today, base, end);
        if (e <= now || e <= s)
            continue; /* ended, or empty */
        if (n < max)
            out[n] = (struct srtime_window){s, e};
        n++;
    }
    return n;
}
