/*
 * simzone — the calendar a replay's standing reservations follow.
 *
 * Maui computes "9:00 on weekdays" in the scheduler's local time. A replay
 * is not running where the trace was recorded, so the simulator picks the
 * zone explicitly: --timezone, else the trace's own TimeZoneString (SWF
 * header), else UTC. A named zone (Europe/Stockholm) becomes the process's
 * TZ and is then the "local" zone of policy/srtime; it must exist under
 * /usr/share/zoneinfo, since glibc would silently read an unknown name as
 * UTC.
 */
#ifndef MOKU_SIMZONE_H
#define MOKU_SIMZONE_H

#include "util/err.h"

struct simzone {
    int local;     /* the process's TZ (set by simzone_apply for a named zone) */
    long offset;   /* seconds east of UTC when !local */
    char name[64]; /* for the report: "UTC", "+02:00", "Europe/Stockholm" */
};

/*
 * Parse a zone: "UTC" (or "Z"), "local" (the process's TZ as it is),
 * "+HH[:MM]" / "-HH[:MM]" fixed offsets up to 14 hours, or a zone name of
 * letters, digits and / _ - + that names a file under /usr/share/zoneinfo.
 * Errors: -1 with err saying what is accepted.
 */
int simzone_parse(const char *text, struct simzone *z, struct err *err);
/* Make z the zone of srtime's "local" calendar (sets TZ for a named zone). */
void simzone_apply(const struct simzone *z);

#endif
