/* idname — see idname.h. */
#include "util/idname.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *idname_user(uid_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, n, "%s", pw->pw_name);
    else
        snprintf(buf, n, "%lu", (unsigned long)uid);
    return buf;
}

const char *idname_group(gid_t gid, char *buf, size_t n)
{
    struct group *gr = getgrgid(gid);
    if (gr)
        snprintf(buf, n, "%s", gr->gr_name);
    else
        snprintf(buf, n, "%lu", (unsigned long)gid);
    return buf;
}

const char *idname_server(char *buf, size_t n)
{
    if (gethostname(buf, n) < 0 || !*buf)
        snprintf(buf, n, "localhost");
    buf[n - 1] = '\0';
    buf[strcspn(buf, ".")] = '\0';
    return buf;
}
