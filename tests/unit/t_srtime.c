/*
 * t_srtime — standing-reservation windows: parsing of PERIOD/DAYS/STARTTIME/
 * ENDTIME/DEPTH and the instances at various `now`, in UTC, a fixed offset
 * and the local zone (America/New_York, set here — the library never touches
 * TZ), across the 2024 DST changes.
 *
 * Reference calendar: January 2024, Monday the 15th to Sunday the 21st.
 */
#include <time.h>

#include "policy/srtime.h"
#include "test.h"

/* "2024-01-15 08:00" as UTC epoch seconds. */
static long utc(const char *s)
{
    struct tm tm = {0};
    if (sscanf(s, "%d-%d-%d %d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min) != 5)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long)timegm(&tm);
}

/* The windows as "Mon 01-15 09:00..Mon 01-15 17:00; ..." in UTC or local time. */
static const char *show(const struct srtime_window *w, size_t n, int local)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        long t2[2] = {w[i].start, w[i].end};
        for (int j = 0; j < 2; j++) {
            time_t tt = (time_t)t2[j];
            struct tm tm;
            if (local)
                localtime_r(&tt, &tm);
            else
                gmtime_r(&tt, &tm);
            const char *sep = j ? ".." : i ? "; " : "";
            len += snprintf(buf + len, sizeof buf - len, "%s", sep);
            len += strftime(buf + len, sizeof buf - len, "%a %m-%d %H:%M", &tm);
        }
    }
    return buf;
}

/* ------------------------------------------------------- data-driven cases */

struct sr_case {
    const char *period, *days, *start, *end, *depth; /* NULL = default */
    const char *now;                                 /* UTC */
    const char *want;                                /* windows in UTC, "" = none */
};

/* The Admin Guide's Example 1, "Basic Business Hour Standing Reservation":
 * SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI STARTTIME=9:00:00 ENDTIME=17:00:00 */
#define BIZ "DAY", "MON,TUE,WED,THU,FRI", "9:00:00", "17:00:00"

static const struct sr_case cases[] = {
    /* business hours, DEPTH 2 (default): today and tomorrow */
    {BIZ, NULL, "2024-01-15 08:00",
     "Mon 01-15 09:00..Mon 01-15 17:00; Tue 01-16 09:00..Tue 01-16 17:00"},
    {BIZ, NULL, "2024-01-15 12:00",
     "Mon 01-15 09:00..Mon 01-15 17:00; Tue 01-16 09:00..Tue 01-16 17:00"},
    {BIZ, NULL, "2024-01-15 17:00", "Tue 01-16 09:00..Tue 01-16 17:00"}, /* [start, end) */
    {BIZ, NULL, "2024-01-15 18:00", "Tue 01-16 09:00..Tue 01-16 17:00"},
    {BIZ, NULL, "2024-01-19 12:00", "Fri 01-19 09:00..Fri 01-19 17:00"}, /* Saturday not selected */
    {BIZ, NULL, "2024-01-19 18:00", ""},                                 /* Fri ended, Sat off */
    {BIZ, NULL, "2024-01-20 10:00", ""},
    {BIZ, NULL, "2024-01-21 10:00",
     "Mon 01-22 09:00..Mon 01-22 17:00"}, /* Sunday: Monday's appears */
    /* DEPTH 1: today only */
    {BIZ, "1", "2024-01-15 08:00", "Mon 01-15 09:00..Mon 01-15 17:00"},
    {BIZ, "1", "2024-01-15 18:00", ""},
    /* Friday evening -> next Monday once the depth reaches it (Fri, Sat, Sun, Mon) */
    {BIZ, "4", "2024-01-19 18:00", "Mon 01-22 09:00..Mon 01-22 17:00"},
    /* DEPTH 7: today and the next 6 days */
    {BIZ, "7", "2024-01-19 12:00",
     "Fri 01-19 09:00..Fri 01-19 17:00; Mon 01-22 09:00..Mon 01-22 17:00; "
     "Tue 01-23 09:00..Tue 01-23 17:00; Wed 01-24 09:00..Wed 01-24 17:00; "
     "Thu 01-25 09:00..Thu 01-25 17:00"},
    {BIZ, "7", "2024-01-19 18:00",
     "Mon 01-22 09:00..Mon 01-22 17:00; Tue 01-23 09:00..Tue 01-23 17:00; "
     "Wed 01-24 09:00..Wed 01-24 17:00; Thu 01-25 09:00..Thu 01-25 17:00"},
    /* every default: whole days, today and tomorrow */
    {NULL, NULL, NULL, NULL, NULL, "2024-01-17 10:00",
     "Wed 01-17 00:00..Thu 01-18 00:00; Thu 01-18 00:00..Fri 01-19 00:00"},
    /* rolling: after midnight yesterday's instance is gone, a new far one appears */
    {NULL, NULL, NULL, NULL, NULL, "2024-01-15 23:59",
     "Mon 01-15 00:00..Tue 01-16 00:00; Tue 01-16 00:00..Wed 01-17 00:00"},
    {NULL, NULL, NULL, NULL, NULL, "2024-01-16 00:00",
     "Tue 01-16 00:00..Wed 01-17 00:00; Wed 01-17 00:00..Thu 01-18 00:00"},
    /* two-field times are HH:MM; ENDTIME 0 is the end of the day */
    {"DAY", "ALL", "8:00", "0", "1", "2024-01-15 01:00", "Mon 01-15 08:00..Tue 01-16 00:00"},
    /* crossing midnight (moku extension): owned by the starting day */
    {"DAY", "ALL", "22:00:00", "6:00:00", "2", "2024-01-15 03:00",
     "Sun 01-14 22:00..Mon 01-15 06:00; Mon 01-15 22:00..Tue 01-16 06:00; "
     "Tue 01-16 22:00..Wed 01-17 06:00"},
    {"DAY", "ALL", "22:00:00", "6:00:00", "2", "2024-01-15 07:00",
     "Mon 01-15 22:00..Tue 01-16 06:00; Tue 01-16 22:00..Wed 01-17 06:00"},
    {"DAY", "FRI", "22:00:00", "6:00:00", "2", "2024-01-20 02:00",
     "Fri 01-19 22:00..Sat 01-20 06:00"},
    {"DAY", "FRI", "22:00:00", "6:00:00", "2", "2024-01-20 06:00", ""},
    /* empty window */
    {"DAY", NULL, "9:00:00", "9:00:00", NULL, "2024-01-15 01:00", ""},
    /* WEEK, the Guide's Example 4: Monday 8:00 AM until Friday 5:00 PM */
    {"WEEK", NULL, "1:08:00:00", "5:17:00:00", NULL, "2024-01-14 12:00",
     "Mon 01-15 08:00..Fri 01-19 17:00; Mon 01-22 08:00..Fri 01-26 17:00"},
    {"WEEK", NULL, "1:08:00:00", "5:17:00:00", NULL, "2024-01-17 12:00",
     "Mon 01-15 08:00..Fri 01-19 17:00; Mon 01-22 08:00..Fri 01-26 17:00"},
    {"WEEK", NULL, "1:08:00:00", "5:17:00:00", NULL, "2024-01-19 18:00",
     "Mon 01-22 08:00..Fri 01-26 17:00"},
    {"WEEK", NULL, "1:08:00:00", "5:17:00:00", "1", "2024-01-19 18:00", ""},
    {"WEEK", NULL, "1:08:00:00", "5:17:00:00", "1", "2024-01-21 00:00",
     "Mon 01-22 08:00..Fri 01-26 17:00"},
    /* WEEK with DAYS (issue 26: accepted and ignored before): the days
     * listed of each week, times of day, DEPTH in weeks */
    {"WEEK", "TUE", "9:00:00", "17:00:00", "2", "2024-01-17 12:00",
     "Tue 01-23 09:00..Tue 01-23 17:00"},
    {"WEEK", "TUE,THU", "9:00:00", "17:00:00", "1", "2024-01-15 08:00",
     "Tue 01-16 09:00..Tue 01-16 17:00; Thu 01-18 09:00..Thu 01-18 17:00"},
    {"WEEK", "SAT", "22:00:00", "6:00:00", "1", "2024-01-21 03:00",
     "Sat 01-20 22:00..Sun 01-21 06:00; Sat 01-27 22:00..Sun 01-28 06:00"},
    /* DAYS=ALL keeps the weekly window of the offsets */
    {"WEEK", "ALL", "1:08:00:00", "5:17:00:00", "1", "2024-01-17 12:00",
     "Mon 01-15 08:00..Fri 01-19 17:00"},
    /* WEEK defaults: whole weeks from Sunday 00:00 */
    {"WEEK", NULL, NULL, NULL, NULL, "2024-01-17 12:00",
     "Sun 01-14 00:00..Sun 01-21 00:00; Sun 01-21 00:00..Sun 01-28 00:00"},
    /* WEEK crossing the week boundary: the weekend, Friday 17:00 to Monday 08:00 */
    {"WEEK", NULL, "5:17:00:00", "1:08:00:00", "2", "2024-01-21 10:00",
     "Fri 01-19 17:00..Mon 01-22 08:00; Fri 01-26 17:00..Mon 01-29 08:00; "
     "Fri 02-02 17:00..Mon 02-05 08:00"},
};

static void test_cases(void)
{
    struct srtime_zone z = SRTIME_ZONE_UTC;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct sr_case *c = &cases[i];
        struct srtime_spec spec;
        struct err e = {{0}};
        int rc = srtime_parse(&spec, c->period, c->days, c->start, c->end, c->depth, &e);
        CHECK_EQ(rc, 0);
        if (rc < 0) {
            fprintf(stderr, "    case %zu: %s\n", i, e.msg);
            continue;
        }
        struct srtime_window w[SRTIME_WINDOWS_MAX];
        size_t n = srtime_instances(&spec, &z, utc(c->now), w, SRTIME_WINDOWS_MAX);
        const char *got = show(w, n, 0);
        if (strcmp(got, c->want) != 0)
            fprintf(stderr, "    case %zu (now %s):\n", i, c->now);
        CHECK_STR(got, c->want);
    }
}

/* ------------------------------------------------------------ other checks */

static void test_infinity(void)
{
    struct srtime_spec spec;
    CHECK_EQ(srtime_parse(&spec, "INFINITY", NULL, NULL, NULL, NULL, NULL), 0);
    CHECK_EQ(spec.period, SRTIME_INFINITY);
    struct srtime_window w[4];
    long now = utc("2024-01-15 08:00");
    struct srtime_zone z = SRTIME_ZONE_UTC;
    CHECK_EQ(srtime_instances(&spec, &z, now, w, 4), 1);
    CHECK_EQ(w[0].start, now);
    CHECK_EQ(w[0].end, SRTIME_FOREVER);
    CHECK_EQ(srtime_parse(&spec, "infinite", NULL, NULL, NULL, NULL, NULL), 0);
    CHECK_EQ(spec.period, SRTIME_INFINITY);
}

static void test_truncation(void)
{
    struct srtime_spec spec;
    srtime_spec_default(&spec);
    struct srtime_window w[2] = {{-1, -1}, {-1, -1}};
    struct srtime_zone z = SRTIME_ZONE_UTC;
    long now = utc("2024-01-15 08:00");
    CHECK_EQ(srtime_instances(&spec, &z, now, w, 1), 2); /* two exist, one written */
    CHECK_EQ(w[0].start, utc("2024-01-15 00:00"));
    CHECK_EQ(w[1].start, -1);
    CHECK_EQ(srtime_instances(&spec, &z, now, NULL, 0), 2);
}

static void test_fixed_offset(void)
{
    /* UTC-5 without DST: 09:00-17:00 there is 14:00-22:00 UTC, every day */
    struct srtime_spec spec;
    CHECK_EQ(srtime_parse(&spec, BIZ, "1", NULL), 0);
    struct srtime_zone z = {0, -5 * 3600};
    struct srtime_window w[4];
    /* 03:00 UTC on Tuesday is still Monday 22:00 in the zone: Monday's window has ended */
    CHECK_EQ(srtime_instances(&spec, &z, utc("2024-01-16 03:00"), w, 4), 0);
    CHECK_EQ(srtime_instances(&spec, &z, utc("2024-01-16 05:00"), w, 4), 1);
    CHECK_STR(show(w, 1, 0), "Tue 01-16 14:00..Tue 01-16 22:00");
    /* Saturday 03:00 UTC is Friday evening there: nothing; Friday noon there: Friday */
    CHECK_EQ(srtime_instances(&spec, &z, utc("2024-01-20 03:00"), w, 4), 0);
    CHECK_EQ(srtime_instances(&spec, &z, utc("2024-01-19 17:00"), w, 4), 1);
    CHECK_STR(show(w, 1, 0), "Fri 01-19 14:00..Fri 01-19 22:00");
}

/* Local zone. Epoch values computed independently (Python zoneinfo). */
static void test_local_zone(void)
{
    struct srtime_zone z = SRTIME_ZONE_LOCAL;
    struct srtime_spec spec;
    struct srtime_window w[SRTIME_WINDOWS_MAX];

    /* Business hours on an EST Monday: 09:00 EST = 14:00 UTC */
    CHECK_EQ(srtime_parse(&spec, BIZ, "1", NULL), 0);
    CHECK_EQ(srtime_instances(&spec, &z, 1705327200 - 3600, w, SRTIME_WINDOWS_MAX), 1);
    CHECK_EQ(w[0].start, 1705327200);
    CHECK_EQ(w[0].end - w[0].start, 8 * 3600);
    CHECK_STR(show(w, 1, 1), "Mon 01-15 09:00..Mon 01-15 17:00");

    /* DST starts Sunday 2024-03-10 02:00: 09:00-17:00 stays wall time, 8 hours long */
    CHECK_EQ(srtime_parse(&spec, "DAY", "ALL", "9:00:00", "17:00:00", "2", NULL), 0);
    long sat_midnight = 1709960400; /* 2024-03-09 00:00 EST */
    CHECK_EQ(srtime_instances(&spec, &z, sat_midnight, w, SRTIME_WINDOWS_MAX), 2);
    CHECK_EQ(w[0].start, 1709992800); /* Sat 09:00 EST = 14:00Z */
    CHECK_EQ(w[1].start, 1710075600); /* Sun 09:00 EDT = 13:00Z */
    CHECK_EQ(w[1].end, 1710104400);   /* Sun 17:00 EDT = 21:00Z */
    CHECK_EQ(w[1].start - w[0].start, 23 * 3600);
    CHECK_STR(show(w, 2, 1), "Sat 03-09 09:00..Sat 03-09 17:00; Sun 03-10 09:00..Sun 03-10 17:00");

    /* the whole day of the change is a calendar day: 23 hours in March, 25 in November */
    srtime_spec_default(&spec);
    CHECK_EQ(srtime_instances(&spec, &z, 1710046800 + 60, w, SRTIME_WINDOWS_MAX), 2);
    CHECK_EQ(w[0].start, 1710046800); /* 2024-03-10 00:00 EST */
    CHECK_EQ(w[0].end, 1710129600);   /* 2024-03-11 00:00 EDT */
    CHECK_EQ(w[0].end - w[0].start, 23 * 3600);
    CHECK_EQ(w[1].start, w[0].end);
    CHECK_EQ(srtime_instances(&spec, &z, 1730606400 + 60, w, SRTIME_WINDOWS_MAX), 2);
    CHECK_EQ(w[0].start, 1730606400); /* 2024-11-03 00:00 EDT */
    CHECK_EQ(w[0].end, 1730696400);   /* 2024-11-04 00:00 EST */
    CHECK_EQ(w[0].end - w[0].start, 25 * 3600);

    /* a window crossing midnight into the change: Sat 22:00 EST to Sun 06:00 EDT, 7 hours */
    CHECK_EQ(srtime_parse(&spec, "DAY", "SAT", "22:00:00", "6:00:00", "1", NULL), 0);
    CHECK_EQ(srtime_instances(&spec, &z, sat_midnight, w, SRTIME_WINDOWS_MAX), 1);
    CHECK_EQ(w[0].start, 1710039600);
    CHECK_EQ(w[0].end, 1710064800);
    CHECK_EQ(w[0].end - w[0].start, 7 * 3600);

    /* WEEK in the week of the change: Monday 08:00 EDT to Friday 17:00 EDT */
    CHECK_EQ(srtime_parse(&spec, "WEEK", NULL, "1:08:00:00", "5:17:00:00", "1", NULL), 0);
    CHECK_EQ(srtime_instances(&spec, &z, 1710046800 + 60, w, SRTIME_WINDOWS_MAX), 1);
    CHECK_EQ(w[0].start, 1710158400);
    CHECK_EQ(w[0].end, 1710536400);

    /* 02:30 does not exist on 2024-03-10; whatever mktime makes of it, the window is sane */
    CHECK_EQ(srtime_parse(&spec, "DAY", "SUN", "2:30:00", "4:00:00", "1", NULL), 0);
    CHECK_EQ(srtime_instances(&spec, &z, 1710046800 + 60, w, SRTIME_WINDOWS_MAX), 1);
    CHECK(w[0].start >= 1710046800 + 60 && w[0].start < w[0].end);
    CHECK_EQ(w[0].end, 1710057600); /* 04:00 EDT = 08:00Z */
}

static void test_parse_forms(void)
{
    struct srtime_spec s;
    struct err e = {{0}};
    CHECK_EQ(srtime_parse(&s, NULL, "MON,TUE,WED,THU,FRI", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, 0x3e);
    CHECK_EQ(srtime_parse(&s, NULL, "Mon Tue Wed Thu Fri", NULL, NULL, NULL, &e), 0); /* SRDAYS */
    CHECK_EQ(s.days, 0x3e);
    CHECK_EQ(srtime_parse(&s, NULL, "mon|fri", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, 0x22);
    CHECK_EQ(srtime_parse(&s, NULL, "Sunday:Saturday", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, 0x41);
    CHECK_EQ(srtime_parse(&s, NULL, "[ALL]", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, SRTIME_ALLDAYS);
    CHECK_EQ(srtime_parse(&s, NULL, "all", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, SRTIME_ALLDAYS);
    CHECK_EQ(srtime_parse(&s, NULL, "Sun, Sat", NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.days, 0x41);

    CHECK_EQ(srtime_parse(&s, "week", NULL, NULL, NULL, NULL, &e), 0);
    CHECK_EQ(s.period, SRTIME_WEEK);
    CHECK_EQ(s.start, 0);
    CHECK_EQ(s.end, 7 * 86400);
    CHECK_EQ(s.depth, 2);
    CHECK_EQ(srtime_parse(&s, "DAY", NULL, "8:00", "17:30", "64", &e), 0); /* HH:MM */
    CHECK_EQ(s.start, 8 * 3600);
    CHECK_EQ(s.end, 17 * 3600 + 1800);
    CHECK_EQ(s.depth, 64);
    CHECK_EQ(srtime_parse(&s, "DAY", NULL, "0", "24:00:00", NULL, &e), 0);
    CHECK_EQ(s.end, 86400);
    CHECK_EQ(srtime_parse(&s, "DAY", NULL, "0:09:00:00", "00:00:00:00", NULL, &e), 0);
    CHECK_EQ(s.start, 9 * 3600);
    CHECK_EQ(s.end, 86400);
    CHECK_EQ(srtime_parse(&s, "WEEK", NULL, "6:23:59:59", "7:00:00:00", NULL, &e), 0);
    CHECK_EQ(s.start, 7 * 86400 - 1);
    CHECK_EQ(s.end, 7 * 86400);
}

static void test_parse_errors(void)
{
    static const struct {
        const char *period, *days, *start, *end, *depth;
        const char *want;
    } bad[] = {
        {"MONTH", NULL, NULL, NULL, NULL, "PERIOD 'MONTH'"},
        {"", NULL, NULL, NULL, NULL, "PERIOD ''"},
        {NULL, "Mon,Funday", NULL, NULL, NULL, "unknown day 'Funday'"},
        {NULL, "Mo", NULL, NULL, NULL, "DAYS 'Mo'"},
        {NULL, "", NULL, NULL, NULL, "DAYS '' names no day"},
        {NULL, ",", NULL, NULL, NULL, "DAYS ',' names no day"},
        {NULL, NULL, "25:00:00", NULL, NULL, "STARTTIME '25:00:00' is not within the day"},
        {NULL, NULL, "24:00:00", NULL, NULL, "STARTTIME '24:00:00' is not within the day"},
        {NULL, NULL, NULL, "24:00:01", NULL,
         "ENDTIME '24:00:01' is not within the day (0 to 24:00:00)"},
        {"DAY", NULL, "1:08:00:00", NULL, NULL, "STARTTIME '1:08:00:00' is not within the day"},
        {"WEEK", NULL, NULL, "8:00:00:00", NULL, "ENDTIME '8:00:00:00' is not within the week"},
        {"WEEK", NULL, "7:00:00:00", NULL, NULL, "STARTTIME '7:00:00:00' is not within the week"},
        {"WEEK", "TUE", "1:08:00:00", NULL, NULL,
         "STARTTIME '1:08:00:00' is not within the day (0 to 23:59:59); with PERIOD=WEEK and "
         "DAYS it is a time of day on each day listed"},
        {NULL, NULL, "-5", NULL, NULL, "STARTTIME '-5'"},
        {NULL, NULL, "nine", NULL, NULL, "STARTTIME 'nine' is not a time"},
        {NULL, NULL, NULL, "9:00:", NULL, "ENDTIME '9:00:' is not a time"},
        {NULL, NULL, "INFINITY", NULL, NULL, "STARTTIME 'INFINITY'"},
        {NULL, NULL, NULL, NULL, "0", "DEPTH '0' is not an integer from 1 to 64"},
        {NULL, NULL, NULL, NULL, "65", "DEPTH '65'"},
        {NULL, NULL, NULL, NULL, "two", "DEPTH 'two'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct srtime_spec s = {SRTIME_WEEK, 5, 11, 22, 33}; /* not the defaults */
        struct srtime_spec before = s;
        struct err e = {{0}};
        CHECK_EQ(srtime_parse(&s, bad[i].period, bad[i].days, bad[i].start, bad[i].end,
                              bad[i].depth, &e),
                 -1);
        CHECK_HAS(e.msg, bad[i].want);
        /* no change on failure */
        CHECK(s.period == before.period && s.days == before.days && s.start == before.start &&
              s.end == before.end && s.depth == before.depth);
    }
    /* err may be NULL */
    struct srtime_spec s;
    CHECK_EQ(srtime_parse(&s, "MONTH", NULL, NULL, NULL, NULL, NULL), -1);
}

int main(void)
{
    TEST_RUN(test_cases);
    TEST_RUN(test_infinity);
    TEST_RUN(test_truncation);
    TEST_RUN(test_fixed_offset);
    TEST_RUN(test_parse_forms);
    TEST_RUN(test_parse_errors);
    /* The local-zone test sets TZ for this test program only. */
    setenv("TZ", "America/New_York", 1);
    tzset();
    TEST_RUN(test_local_zone);
    return TEST_DONE();
}
