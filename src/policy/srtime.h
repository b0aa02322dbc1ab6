/*
 * srtime — the time windows of a standing reservation (SRCFG PERIOD, DAYS,
 * STARTTIME, ENDTIME, DEPTH; digest §6.2, Admin Guide 7.1.5.2).
 *
 * Given the timeframe attributes of a standing reservation and `now`, it lists
 * the instances [start, end) that are current or upcoming, in the calendar of
 * a time zone. It is pure computation: no clock, no I/O, no process state is
 * changed (in particular it never sets TZ or calls tzset()).
 *
 * What it is not: it does not pick nodes, create reservations or keep track
 * of which instances exist; the reservation code calls it each iteration and
 * reconciles (keep the instances whose window it already holds, create the
 * new far one after midnight, drop the ended one — Maui's "rolling").
 *
 * Semantics (Maui Admin Guide, verified there; where moku differs it says so):
 *  - PERIOD=DAY: one window per selected weekday, STARTTIME..ENDTIME as time
 *    of day. PERIOD=WEEK: one window per week, STARTTIME..ENDTIME as offsets
 *    into the week written DD:HH:MM:SS, day 0 = Sunday (the Guide's example
 *    1:08:00:00..5:17:00:00 is "Monday 8:00 AM until Friday 5:00 PM"). DAYS
 *    is for DAY ("if a standing reservation is configured to recur daily,
 *    DAYS may be specified"); PERIOD=WEEK with DAYS naming days (moku; Maui
 *    3.3.1 ignores DAYS there) is a window on each day listed, STARTTIME..
 *    ENDTIME as times of day, DEPTH counted in weeks. PERIOD=INFINITY: one
 *    permanent window.
 *  - Defaults: PERIOD DAY, DAYS [ALL], STARTTIME 0 (midnight), ENDTIME end of
 *    the period (24:00:00, or 7 days for WEEK; an ENDTIME of 0 means the same,
 *    as in Maui), DEPTH 2.
 *  - DEPTH counts periods, not instances: the current period (today, this
 *    week) and DEPTH-1 after it ("DEPTH=7: today and the next 6 days"). A
 *    period whose day is not in DAYS, or whose window has already ended,
 *    contributes nothing, so Mon..Fri with DEPTH 2 has no instance on a
 *    Friday evening; Monday's appears on Sunday.
 *  - ENDTIME before STARTTIME: moku extension. The Guide says only one
 *    STARTTIME/ENDTIME pair exists and overnight windows need two standing
 *    reservations (20:00-24:00 and 00:00-06:00); Maui 3.3.1 would build an
 *    instance that ends before it starts. moku reads it as a window that runs
 *    into the next period (22:00..06:00 = 22:00 to 06:00 the next morning),
 *    owned by the period it starts in (DAYS selects the starting day). While
 *    such a window that started in the previous period is still running it is
 *    listed too, so the list can hold DEPTH+1 windows until it ends.
 *    STARTTIME == ENDTIME is an empty window and yields nothing.
 *  - The legacy week offsets (WSTARTTIME/WENDTIME, Maui 3.2) are the caller's
 *    business: pass them as starttime/endtime with PERIOD=WEEK.
 *
 * Time zones and DST: a day is a calendar day of the zone. In the local zone
 * the window 09:00-17:00 is 09:00-17:00 wall-clock time on every day, also on
 * the days DST starts or ends (those days are 23 or 25 hours long, the windows
 * stay 8 hours). A wall time that does not exist (inside the spring-forward
 * gap) or exists twice (fall-back) is resolved the way mktime() resolves it
 * with tm_isdst = -1. A fixed-offset zone (UTC in simulation, unless the
 * trace says otherwise) has 86400-second days.
 */
#ifndef MOKU_SRTIME_H
#define MOKU_SRTIME_H

#include <stddef.h>

#include "util/err.h"

enum srtime_period { SRTIME_DAY, SRTIME_WEEK, SRTIME_INFINITY };

/* Weekday bits of srtime_spec.days: bit 0 = Sunday ... bit 6 = Saturday. */
#define SRTIME_ALLDAYS 0x7fu
/* Largest DEPTH (Maui's MAX_SRES_DEPTH). */
#define SRTIME_DEPTH_MAX 64
/* Room enough for every window srtime_instances() can return. */
#define SRTIME_WINDOWS_MAX                                                                         \
    (7 * SRTIME_DEPTH_MAX + 1) /* WEEK by day: 7 a week, and one running in */
/* End of the INFINITY window: Maui's MAX_MTIME (same value as CFG_TIME_INFINITY). */
#define SRTIME_FOREVER 2140000000L

struct srtime_spec {
    enum srtime_period period;
    unsigned days; /* SRTIME_ALLDAYS bits; used by PERIOD=DAY, and WEEK with by_day */
    int by_day;    /* PERIOD=WEEK with DAYS naming days: a window on each day listed,
                      start and end times of day; depth in weeks */
    long start;    /* offset into the period, 0 <= start < period length */
    long end;      /* offset into the period, 0 < end <= period length; end < start:
                      the window runs into the next period */
    int depth;     /* periods kept: the current one and depth-1 after, 1..SRTIME_DEPTH_MAX */
};

/* The calendar the windows are computed in. */
struct srtime_zone {
    int local;   /* nonzero: the process's local zone (TZ), via localtime_r/mktime */
    long offset; /* when !local: fixed offset, seconds east of UTC (0 = UTC) */
};

#define SRTIME_ZONE_UTC ((struct srtime_zone){0, 0})
#define SRTIME_ZONE_LOCAL ((struct srtime_zone){1, 0})

/* One instance: [start, end), epoch seconds. */
struct srtime_window {
    long start, end;
};

/* The defaults: DAY, all days, 00:00..24:00, DEPTH 2. */
void srtime_spec_default(struct srtime_spec *spec);

/*
 * Parse the SRCFG attributes PERIOD, DAYS, STARTTIME, ENDTIME and DEPTH (the
 * values as written; NULL = not given, the default applies) into *spec.
 *  PERIOD     DAY | WEEK | INFINITY (any case; INFINITE, the Guide's prose
 *             spelling, also accepted)
 *  DAYS       weekdays separated by ',' '|' ':' or blanks: Sun..Sat in any case
 *             (MON, Mon), full names (Monday), or ALL / [ALL]
 *  STARTTIME, ENDTIME
 *             [[[DD:]HH:]MM:]SS (cfg_parse_time: two fields are HH:MM); within
 *             the day for DAY and for WEEK with DAYS (ENDTIME up to 24:00:00),
 *             within the week for WEEK (ENDTIME up to 7:00:00:00); ignored for
 *             INFINITY
 *  DEPTH      1..SRTIME_DEPTH_MAX
 * All or nothing: on error *spec is unchanged and err names the attribute and
 * the value, e.g. "STARTTIME '25:00:00' is not within the day (0 to 23:59:59)".
 * The caller prefixes file, line and SRCFG[name].
 */
int srtime_parse(struct srtime_spec *spec, const char *period, const char *days,
                 const char *starttime, const char *endtime, const char *depth, struct err *err);

/*
 * The windows of spec that have not ended at `now` (end > now), in order of
 * start: for DAY one per selected day from today to today+depth-1, for WEEK
 * one per week from this week (Sunday 00:00) on (with by_day one per
 * selected day of those weeks), for INFINITY [now,
 * SRTIME_FOREVER). A window that began before now is returned whole (Maui
 * starts the reservation for the current instance at now; the caller clamps
 * when it books it). Empty windows are skipped.
 * Writes at most `max` windows into out and returns how many there are (like
 * snprintf: a result > max means out was too small; SRTIME_WINDOWS_MAX always
 * suffices).
 */
/*
 * When the calendar next moves on after now: the start of the next period
 * (the zone's next midnight for DAY, next Sunday 00:00 for WEEK), where
 * srtime_instances may list a new window; SRTIME_FOREVER for INFINITY.
 */
long srtime_next_period(const struct srtime_spec *spec, const struct srtime_zone *zone, long now);

size_t srtime_instances(const struct srtime_spec *spec, const struct srtime_zone *zone, long now,
                        struct srtime_window *out, size_t max);

#endif
