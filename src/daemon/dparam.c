/*
 * dparam — changeparam: an ADMIN1 sets global maui.cfg parameters on a
 * running daemon, as Maui's `changeparam PARAM VALUE` does, and the change
 * is kept: maui.cfg is rewritten (the parameter's old lines, under either
 * spelling, give way to one new line at the end) and reloaded. A reload
 * that refuses the new file puts the old one back, so the file on disk and
 * the running configuration never part. The file is replaced by rename, so
 * a crash leaves either the old file or the new one whole.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cfg/cfg_tab.h"
#include "daemon/daemon_int.h"
#include "util/mem.h"

/* Parameters that name files or programs the daemon opens or runs as
 * itself (root): an ADMIN1 who is not the daemon's owner could make it run
 * their program (MAILPROGRAM) or write where they choose (LOGDIR). And
 * where the daemon listens (WEBADDRESS, WEBPORT): a port taken by another
 * service would keep the daemon from its next start. They stay with those
 * who can edit maui.cfg anyway: root and the daemon's user. */
static const char *const owner_only[] = {"MAILPROGRAM",
                                         "NOTIFICATIONPROGRAM",
                                         "FEEDBACKPROGRAM",
                                         "LOGDIR",
                                         "LOGFILE",
                                         "LOCKFILE",
                                         "STATDIR",
                                         "TOOLSDIR",
                                         "CHECKPOINTFILE",
                                         "FSCONFIGFILE",
                                         "RMCONFIGFILE",
                                         "SIMRESOURCETRACEFILE",
                                         "SIMWORKLOADTRACEFILE",
                                         "WEBADDRESS",
                                         "WEBPORT",
                                         NULL};

static int is_owner_only(const struct cfg_param *p)
{
    for (int i = 0; owner_only[i]; i++)
        if (cfg_param_find(owner_only[i]) == p)
            return 1;
    return 0;
}

/* PARAM: a global parameter of the table (not PARAM[index], not an object
 * such as USERCFG[x]); VALUE: one line of printable text without '#', not
 * ending in '\' (which would join the next line of maui.cfg to it). */
static int check_pair(const char *param, const char *value, const char *by, int owner,
                      struct err *err)
{
    const struct cfg_param *p = cfg_param_find(param);
    if (!p)
        return err_set(err, "changeparam: '%.64s' is not a maui.cfg parameter moku knows", param);
    if (!owner && is_owner_only(p))
        return err_set(err,
                       "changeparam: user %s is not authorized to change %s (a file or "
                       "program the daemon uses as itself, or where it listens: root or "
                       "the daemon's user only)",
                       by, p->name);
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
        n--;
    if (n > 0 && value[n - 1] == '\\')
        return err_set(err, "changeparam: %s: the value may not end in '\\'", param);
    if (!*value)
        return err_set(err, "changeparam: %s: no value", param);
    for (const char *v = value; *v; v++)
        if ((unsigned char)*v < 0x20 || *v == 0x7f || *v == '#')
            return err_set(err,
                           "changeparam: %s: the value may not hold control characters "
                           "or '#'",
                           param);
    return 0;
}

/* The first word of a line, upper-cased, at most n-1 bytes ("" if none). */
static void first_word(const char *line, size_t len, char *out, size_t n)
{
    size_t i = 0, k = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    while (i < len && !isspace((unsigned char)line[i]) && k + 1 < n)
        out[k++] = (char)toupper((unsigned char)line[i++]);
    out[k] = '\0';
}

/* Whether a line of the file sets one of the pairs' parameters. */
static int line_is_changed(const char *line, size_t len, int argc, char **argv)
{
    char word[128];
    first_word(line, len, word, sizeof word);
    const struct cfg_param *p = word[0] ? cfg_param_find(word) : NULL;
    for (int i = 0; p && i < argc; i += 2)
        if (cfg_param_find(argv[i]) == p)
            return 1;
    return 0;
}

/* old with the pairs' lines replaced (caller frees). */
static char *rewrite(const char *old, int argc, char **argv, const char *by)
{
    struct cfg_sbuf b = {0};
    cfg_lex_putn(&b, "", 0);
    for (const char *p = old; *p;) {
        size_t n = strcspn(p, "\n");
        size_t full = n + (p[n] == '\n');
        if (!line_is_changed(p, n, argc, argv))
            cfg_lex_putn(&b, p, full);
        p += full;
    }
    if (b.len && b.s[b.len - 1] != '\n')
        cfg_lex_putc(&b, '\n');
    /* The note on the line itself, so that it goes with the line when the
     * parameter changes again. */
    for (int i = 0; i < argc; i += 2)
        cfg_lex_printf(&b, "%s %s # changeparam by %s\n", cfg_param_find(argv[i])->name,
                       argv[i + 1], by);
    return b.s;
}

static char *read_all(const char *path, struct err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return xstrdup(""); /* no maui.cfg: Maui's defaults; the new one holds the change */
        err_set(err, "changeparam: %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t len;
    char *text = cfg_lex_read(f, &len); /* NUL bytes become spaces */
    fclose(f);
    (void)len;
    return text;
}

/* Replace path's content by text: a temporary file beside it, synced,
 * renamed over it, the directory synced. */
static int write_all(const char *path, const char *text, struct err *err)
{
    struct stat st;
    int had = stat(path, &st) == 0;
    mode_t mode = had ? st.st_mode & 07777 : 0644;
    char *tmp = xprintf("%s.new", path);
    unlink(tmp); /* a new file, never one a link points to */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0 && had && fchown(fd, st.st_uid, st.st_gid) < 0) {
        /* Not root: the file stays the daemon's user's, as it was. */
    }
    size_t len = strlen(text), done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int bad = fd < 0 || done < len || fchmod(fd, mode) < 0 || fsync(fd) < 0;
    int saved = errno;
    if (fd >= 0 && close(fd) < 0)
        bad = 1;
    if (bad || rename(tmp, path) < 0) {
        err_set(err, "changeparam: cannot write %s: %s", path, strerror(bad ? saved : errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
    return 0;
}

int dparam_change(struct dmn *d, const char *by, int owner, int argc, char **argv, char **report,
                  struct err *err)
{
    *report = NULL;
    if (argc < 2 || argc % 2)
        return err_usage(err, "changeparam: usage: changeparam PARAM VALUE [PARAM VALUE]...");
    for (int i = 0; i < argc; i += 2) {
        if (check_pair(argv[i], argv[i + 1], by, owner, err) < 0)
            return -1;
        for (int k = 0; k < i; k += 2)
            if (cfg_param_find(argv[k]) == cfg_param_find(argv[i]))
                return err_usage(err, "changeparam: %s is given twice", argv[i]);
    }
    /* A maui.cfg that is a link (to /etc/moku, say) is changed where it
     * points, not replaced by a file of its own. */
    char *real = realpath(d->cfg_path, NULL);
    const char *path = real ? real : d->cfg_path;
    int existed = real != NULL;
    char *old = read_all(path, err);
    if (!old) {
        free(real);
        return -1;
    }
    char *text = rewrite(old, argc, argv, by);
    int rc = write_all(path, text, err);
    free(text);
    if (rc == 0 && d->loop.reload(d, report, err) < 0) {
        /* Refused: the file as it was (none, if there was none). */
        struct err e2 = {""};
        if (existed ? write_all(path, old, &e2) < 0 : unlink(path) < 0)
            dlog(d->log, 0,
                 "changeparam: %s could not be put back: %s (it holds the refused "
                 "change)",
                 path, e2.msg[0] ? e2.msg : strerror(errno));
        rc = -1;
    }
    free(real);
    if (rc == 0)
        for (int i = 0; i < argc; i += 2)
            dlog(d->log, 0, "changeparam by %s: %s %s", by, argv[i], argv[i + 1]);
    free(old);
    return rc;
}
