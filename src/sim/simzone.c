/*
 * simzone — see simzone.h.
 */
#include "sim/simzone.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int parse_offset(const char *t, struct simzone *z)
{
    int sign = *t == '-' ? -1 : 1;
    unsigned hh = 0, mm = 0;
    char extra;
    int n = sscanf(t + 1, "%2u:%2u%c", &hh, &mm, &extra);
    if (n < 1 || n > 2 || hh > 14 || mm > 59 || strspn(t + 1, "0123456789:") != strlen(t + 1))
        return -1;
    z->local = 0;
    z->offset = sign * (long)(hh * 3600 + mm * 60);
    snprintf(z->name, sizeof z->name, "%c%02u:%02u", sign < 0 ? '-' : '+', hh, mm);
    return 0;
}

static int valid_name(const char *t)
{
    size_t n = strlen(t);
    if (!n || n >= sizeof((struct simzone *)0)->name || t[0] == '/' || strstr(t, ".."))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '/' || c == '_' || c == '-' || c == '+'))
            return 0;
    }
    char path[128];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", t);
    return access(path, R_OK) == 0;
}

int simzone_parse(const char *text, struct simzone *z, struct err *err)
{
    memset(z, 0, sizeof *z);
    if (!text || strcasecmp(text, "UTC") == 0 || strcmp(text, "Z") == 0) {
        snprintf(z->name, sizeof z->name, "UTC");
        return 0;
    }
    if (strcasecmp(text, "local") == 0) {
        z->local = 1;
        snprintf(z->name, sizeof z->name, "local");
        return 0;
    }
    if ((text[0] == '+' || text[0] == '-') && parse_offset(text, z) == 0)
        return 0;
    if (valid_name(text)) {
        z->local = 1;
        snprintf(z->name, sizeof z->name, "%s", text);
        return 0;
    }
    return err_set(err,
                   "time zone '%.40s' is not UTC, local, +HH:MM, -HH:MM or a zone name found "
                   "under /usr/share/zoneinfo",
                   text);
}

void simzone_apply(const struct simzone *z)
{
    if (z->local && strcmp(z->name, "local") != 0)
        setenv("TZ", z->name, 1);
    tzset();
}
