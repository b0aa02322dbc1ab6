/*
 * mkman — the man pages and the bash completion, generated from the help
 * table that --help prints (src/cli/help_tab.c), so that they never drift.
 *
 *   mkman man DIR [DATE]      DIR/<name>.<section> for every command
 *   mkman completion FILE     the bash completion script
 *   mkman links               the names installed as symlinks to moku (one a
 *                             line): the command table's one-word names
 *
 * DATE (YYYY-MM-DD) dates the pages: default SOURCE_DATE_EPOCH's day, else
 * today (UTC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/help.h"
#include "cmd/cmdtab.h"

static void today(char out[16])
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 16, "%Y-%m-%d", &tm);
}

static int write_pages(const char *dir, const char *date)
{
    const struct help_cmd *c;
    for (size_t i = 0; (c = help_at(i)); i++) {
        char name[96], path[4096];
        help_man_name(c, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        help_man(f, c, date);
        if (fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "man") == 0) {
        char date[16];
        today(date);
        return write_pages(argv[2], argc > 3 ? argv[3] : date);
    }
    if (argc == 3 && strcmp(argv[1], "completion") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        help_completion(f);
        return fclose(f) != 0;
    }
    if (argc == 2 && strcmp(argv[1], "links") == 0) {
        for (size_t i = 0; cmd_def_at(i); i++)
            if (!strchr(cmd_def_at(i)->doc.name, ' '))
                printf("%s\n", cmd_def_at(i)->doc.name);
        return fflush(stdout) != 0;
    }
    fprintf(stderr, "usage: mkman man DIR [DATE] | mkman completion FILE | mkman links\n");
    return 2;
}
