/*
 * diagnose -f — fairshare: the parameters, the usage of each window and, per
 * credential, its decayed share, its target and its share of each window
 * (digest §4.6, Maui 3.3.1 MFSShow). It only reads the ledger (policy/fs.h);
 * the numbers are the ones fs_percent and fs_window give the engine.
 *
 * Text:
 *
 *   FairShare Information
 *
 *   Depth: 8 intervals   Interval Length: 12:00:00   Decay Rate: 1.00
 *
 *   FS Policy: [NONE]
 *   System FS Settings:  Target Usage: 0.00    Flags: 0
 *
 *   FSInterval        %     Target       0       1
 *   FSWeight       ------- -------  1.0000  0.5000
 *   TotalUsage      100.00 -------     3.1     2.8
 *
 *   GROUP
 *   -------------
 *   dallas*           0.00  15.00  100.00 -------
 *
 * A window column per window 0..FSDEPTH-1 that has usage in the total; its
 * weight is FSDECAY^i and its total is in processor-hours. A row is the name
 * (`*` when off target), the decayed share in percent, the target (value and
 * mode character, `-------` without one) and per window the object's share
 * of that window's total (`-------` when it used nothing in it). Sections
 * USER, GROUP, ACCT, QOS, CLASS, each only when it lists an object; an object
 * is listed when it has a target of its own or usage in a window shown (a
 * DEFAULT object too: the jobs without that credential).
 *
 * Where moku differs from Maui: no line has trailing blanks (Maui pads the
 * target with its mode character, a blank for a plain target, which the 3.2
 * docs sample does not show either); listing is always what Maui shows with
 * -v (objects with history but no current usage included).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "policy/fs.h"

/* Maui's section order and titles; JSON types are cred_kind_name(). */
static const struct {
    enum cred_kind kind;
    const char *title;
} sections[] = {{CRED_USER, "USER"},
                {CRED_GROUP, "GROUP"},
                {CRED_ACCOUNT, "ACCT"},
                {CRED_QOS, "QOS"},
                {CRED_CLASS, "CLASS"}};
#define NSECTIONS (sizeof sections / sizeof sections[0])

#define NO_VALUE "-------" /* a cell with nothing to show, 7 wide */

/* ---- what is shown ---- */

/* Whether credential c gets a row (or a JSON entry): a target of its own,
 * or usage in a window shown — the DEFAULT object too, which holds the
 * usage of jobs without that credential (an SWF job whose user is -1), so
 * that each window's rows add up to its total. */
static int listed(const struct fs *f, const struct cred *c)
{
    return fs_own_target(f, c).mode != FS_MODE_NONE || fs_has_usage(f, c);
}

/* Maui's `*`: a floor not reached, a ceiling passed, or a plain target missed
 * by more than 5 points. Caps and a target of 0 (no target to Maui) never;
 * nor anything while no usage at all is recorded (a share of nothing is not
 * off target: the 3.2 docs sample shows `dallas 0.00 15.00` unmarked). */
static int off_target(const struct fs *f, double pct, struct fs_target t)
{
    if (t.value <= 0 || fs_total(f) <= 0)
        return 0;
    switch (t.mode) {
    case FS_MODE_FLOOR:
        return pct < t.value;
    case FS_MODE_CEILING:
        return pct > t.value;
    case FS_MODE_TARGET:
        return fabs(pct - t.value) > 5.0;
    default:
        return 0;
    }
}

static const char *policy_base(enum fs_policy p)
{
    switch (p) {
    case FS_DEDICATEDPS:
        return "DEDICATEDPS";
    case FS_DEDICATEDPES:
        return "DEDICATEDPES";
    case FS_UTILIZEDPS:
        return "UTILIZEDPS";
    default:
        return "NONE";
    }
}

/* FSPOLICY as configured: the name, `%` appended for a percent policy. */
static void policy_name(const struct fs_params *p, char out[32])
{
    snprintf(out, 32, "%s%s", policy_base(p->policy),
             p->policy != FS_NONE && p->percent ? "%" : "");
}

/* A target as Maui prints it: "%.2f" and the mode character, a blank for a
 * plain target (so values line up whatever the mode); "0.00 " for none. */
static void target_text(struct fs_target t, char out[32])
{
    if (t.mode == FS_MODE_NONE) {
        snprintf(out, 32, "%.2f ", 0.0);
        return;
    }
    fs_target_format(&t, out);
    size_t n = strlen(out);
    if (t.mode == FS_MODE_TARGET && n < 31) {
        out[n] = ' ';
        out[n + 1] = '\0';
    }
}

/* ---- text ---- */

/* End the current line without trailing blanks. */
static void end_line(struct cmd_buf *b)
{
    while (b->len > 0 && b->s[b->len - 1] == ' ')
        b->s[--b->len] = '\0';
    cmd_buf_puts(b, "\n");
}

static void text_head(struct cmd_buf *out, const struct fs *f)
{
    const struct fs_params *p = fs_params(f);
    char dur[CMD_TIME_MAX], pol[32], tgt[32];
    cmd_fmt_duration(p->interval, dur);
    policy_name(p, pol);
    target_text(fs_total_target(f), tgt);
    cmd_buf_puts(out, "FairShare Information\n\n");
    cmd_buf_printf(out, "Depth: %d intervals   Interval Length: %s   Decay Rate: %.2f\n\n",
                   p->depth, dur, p->decay);
    if (p->policy == FS_NONE)
        cmd_buf_puts(out, "FS Policy: [NONE]\n");
    else
        cmd_buf_printf(out, "FS Policy: %s\n", pol);
    cmd_buf_printf(out, "System FS Settings:  Target Usage: %s   Flags: 0\n\n", tgt);
}

/* The three lines of window columns; cols[] lists the windows shown. */
static void text_windows(struct cmd_buf *out, const struct fs *f, const int *cols, int ncols)
{
    double decay = fs_params(f)->decay;
    cmd_buf_puts(out, "FSInterval        %     Target");
    for (int k = 0; k < ncols; k++)
        cmd_buf_printf(out, " %7d", cols[k]);
    end_line(out);
    cmd_buf_printf(out, "%-14s %7s %7s", "FSWeight", NO_VALUE, NO_VALUE);
    for (int k = 0; k < ncols; k++)
        cmd_buf_printf(out, " %7.4f", pow(decay, cols[k]));
    end_line(out);
    cmd_buf_printf(out, "%-14s %7.2f %7s", "TotalUsage", 100.0, NO_VALUE);
    for (int k = 0; k < ncols; k++)
        cmd_buf_printf(out, " %7.1f", fs_total_window(f, cols[k]) / 3600.0);
    end_line(out);
}

static void text_row(struct cmd_buf *out, const struct fs *f, const struct cred *c, const int *cols,
                     int ncols)
{
    double pct = fs_percent(f, c);
    struct fs_target t = fs_target_of(f, c);
    int star = off_target(f, pct, t);
    int pad = 14 - (int)strlen(c->name) - star; /* %-14s of name and star, never cut */
    char tgt[32];
    if (t.mode == FS_MODE_NONE)
        snprintf(tgt, sizeof tgt, "%s", NO_VALUE);
    else
        target_text(t, tgt);
    cmd_buf_printf(out, "%s%s%*s %7.2f %7s", c->name, star ? "*" : "", pad > 0 ? pad : 0, "", pct,
                   tgt);
    for (int k = 0; k < ncols; k++) {
        double used = fs_window(f, c, cols[k]);
        if (used == 0)
            cmd_buf_printf(out, " %7s", NO_VALUE);
        else
            cmd_buf_printf(out, " %7.2f", 100.0 * used / fs_total_window(f, cols[k]));
    }
    end_line(out);
}

static void text_section(struct cmd_buf *out, const struct fs *f, const struct cred_table *t,
                         const char *title, const int *cols, int ncols)
{
    int shown = 0;
    for (size_t i = 0; i < cred_count(t); i++) {
        const struct cred *c = cred_at(t, i);
        if (!listed(f, c))
            continue;
        if (!shown++)
            cmd_buf_printf(out, "\n%s\n-------------\n", title);
        text_row(out, f, c, cols, ncols);
    }
}

static void fs_text(struct cmd_buf *out, const struct sched *s)
{
    const struct fs *f = sched_fs(s);
    int cols[FS_MAX_DEPTH], ncols = 0;
    for (int i = 0; i < fs_params(f)->depth && i < FS_MAX_DEPTH; i++)
        if (fs_total_window(f, i) != 0)
            cols[ncols++] = i;
    text_head(out, f);
    text_windows(out, f, cols, ncols);
    for (size_t k = 0; k < NSECTIONS; k++) {
        const struct cred_table *t = sched_creds(s, sections[k].kind);
        if (t)
            text_section(out, f, t, sections[k].title, cols, ncols);
    }
}

/* ---- JSON ---- */

static const char *mode_name(enum fs_mode m)
{
    switch (m) {
    case FS_MODE_TARGET:
        return "target";
    case FS_MODE_FLOOR:
        return "floor";
    case FS_MODE_CEILING:
        return "ceiling";
    case FS_MODE_CAP:
        return "cap";
    case FS_MODE_PCAP:
        return "pcap";
    default:
        return "none";
    }
}

static json_t *json_cred(const struct fs *f, const struct cred *c)
{
    struct fs_target t = fs_target_of(f, c);
    json_t *win = json_array();
    for (int i = 0; i < fs_params(f)->depth; i++)
        json_array_append_new(win, json_real(fs_window(f, c, i)));
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(cred_kind_name(c->kind)));
    json_object_set_new(o, "name", cmd_jstr(c->name));
    json_object_set_new(o, "target", t.mode == FS_MODE_NONE ? json_null() : json_real(t.value));
    json_object_set_new(o, "mode", json_string(mode_name(t.mode)));
    json_object_set_new(o, "usage", json_real(fs_percent(f, c)));
    json_object_set_new(o, "windows", win);
    return o;
}

static void fs_json(struct cmd_buf *out, const struct sched *s)
{
    const struct fs *f = sched_fs(s);
    const struct fs_params *p = fs_params(f);
    char pol[32];
    policy_name(p, pol);
    json_t *creds = json_array();
    for (size_t k = 0; k < NSECTIONS; k++) {
        const struct cred_table *t = sched_creds(s, sections[k].kind);
        for (size_t i = 0; t && i < cred_count(t); i++)
            if (listed(f, cred_at(t, i)))
                json_array_append_new(creds, json_cred(f, cred_at(t, i)));
    }
    json_t *root = json_object();
    json_object_set_new(root, "policy", json_string(pol));
    json_object_set_new(root, "interval", json_integer(p->interval));
    json_object_set_new(root, "depth", json_integer(p->depth));
    json_object_set_new(root, "decay", json_real(p->decay));
    /* The windows hold usage up to this time (the last iteration's), not
     * up to the answer's: a reader comparing two answers needs it. */
    json_object_set_new(root, "as_of", json_integer(fs_now(f)));
    json_object_set_new(root, "credentials", creds);
    cmd_json_out(out, root);
}

/* ---- entry ---- */

void cmd_diag_fs(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out)
{
    if (a->json)
        fs_json(out, c->s);
    else
        fs_text(out, c->s);
}
