/*
 * t_qsub — tests of the submission parser (cmd/qsub): every option in both
 * forms, directives (#PBS, #MSUB, where they stop, the command line
 * overriding them), -l combinations and units, -a dates, -W x= items, -v/-V,
 * every error message, the JSON round trip and a table of hostile JSON.
 *
 * Most cases are tables: a command line (split at blanks, '...' groups), a
 * script (NULL: a plain one) and fragments of the request's dump, " key=value "
 * per JSON field (strings bare, the rest as compact JSON); a fragment
 * starting with '!' names a key that must be absent, one ending in '*' gives
 * only the start of the value.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/qsub.h"
#include "test.h"
#include "util/mem.h"

#define NOW 1710504000L /* 2024-03-15 12:00:00 UTC, a Friday */
#define CWD "/home/u/work"
#define PLAIN "#!/bin/sh\necho hi\n"

static char *const envp[] = {"HOME=/home/u", "PATH=/usr/bin:/bin", "FOO=foo",  "BAR=bar baz",
                             "BAD-NAME=x",   "FUNC=() {\n}",       "NOEQUALS", NULL};

/* ---------------------------------------------------------------- helpers */

struct cmdline {
    char buf[8192];
    char *argv[64];
    int argc;
};

/* "qsub" and the words of line: blanks separate, '...' groups. */
static void split(struct cmdline *c, const char *line)
{
    char *o = c->buf;
    c->argc = 0;
    c->argv[c->argc++] = "qsub";
    for (const char *p = line; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        c->argv[c->argc++] = o;
        for (int q = 0; *p && (q || *p != ' '); p++) {
            if (*p == '\'')
                q = !q;
            else
                *o++ = *p;
        }
        *o++ = '\0';
    }
    c->argv[c->argc] = NULL;
}

static int parse_n(const char *args, const char *script, size_t len, struct qsub_req *r,
                   struct err *err)
{
    struct cmdline c;
    split(&c, args);
    return qsub_parse(c.argc, c.argv, script, len, "job.sh", CWD, envp, NOW, r, err);
}

static int parse(const char *args, const char *script, struct qsub_req *r, struct err *err)
{
    script = script ? script : PLAIN;
    return parse_n(args, script, strlen(script), r, err);
}

/* " key=value " for every field but the script. Caller frees. */
static char *dump(const struct qsub_req *r)
{
    json_t *o = qsub_to_json(r);
    CHECK(o != NULL);
    if (!o)
        return xstrdup("");
    json_object_del(o, "script");
    size_t cap = 1, len = 0;
    char *out = xcalloc(1, 1);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        char *text = json_is_string(v) ? xstrdup(json_string_value(v))
                                       : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        size_t need = len + strlen(key) + strlen(text) + 4;
        out = xgrow(out, &cap, need, 1);
        len += (size_t)sprintf(out + len, " %s=%s", key, text);
        free(text);
    }
    out = xgrow(out, &cap, len + 2, 1);
    strcpy(out + len, " ");
    json_decref(o);
    return out;
}

/* Whether the dump has every wanted fragment. */
static void check_dump(const char *what, const struct qsub_req *r, const char *const *want)
{
    char *d = dump(r);
    for (size_t i = 0; i < 8 && want[i]; i++) {
        char frag[256];
        if (want[i][0] == '!') {
            snprintf(frag, sizeof frag, " %s=", want[i] + 1);
            if (strstr(d, frag)) {
                test_failed_checks++;
                fprintf(stderr, "%s: %s: '%s' has %s\n", test_name, what, d, frag);
            }
        } else {
            size_t n = strlen(want[i]);
            if (n && want[i][n - 1] == '*') /* a prefix of the value */
                snprintf(frag, sizeof frag, " %.*s", (int)n - 1, want[i]);
            else
                snprintf(frag, sizeof frag, " %s ", want[i]);
            if (!strstr(d, frag)) {
                test_failed_checks++;
                fprintf(stderr, "%s: %s: '%s' lacks '%s'\n", test_name, what, d, frag);
            }
        }
    }
    free(d);
}

struct ok_case {
    const char *args;
    const char *script; /* NULL: PLAIN */
    const char *want[8];
};

static void run_ok(const struct ok_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct qsub_req r;
        struct err err = {""};
        if (parse(cases[i].args, cases[i].script, &r, &err) < 0) {
            test_failed_checks++;
            fprintf(stderr, "%s: '%s': %s\n", test_name, cases[i].args, err.msg);
            continue;
        }
        CHECK(qsub_check(&r, NULL) == 0);
        check_dump(cases[i].args, &r, cases[i].want);
        qsub_free(&r);
    }
}

struct bad_case {
    const char *args;
    const char *script;
    const char *want; /* a substring of the message */
};

static void run_bad(const struct bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct qsub_req r = {.name = (char *)"untouched"};
        struct err err = {""};
        int rc = parse(cases[i].args, cases[i].script, &r, &err);
        if (rc == 0) {
            test_failed_checks++;
            fprintf(stderr, "%s: '%s' parsed, expected '%s'\n", test_name, cases[i].args,
                    cases[i].want);
            qsub_free(&r);
            continue;
        }
        CHECK_STR(r.name, "untouched"); /* no side effect on failure */
        if (!strstr(err.msg, cases[i].want)) {
            test_failed_checks++;
            fprintf(stderr, "%s: '%s': \"%s\" lacks \"%s\"\n", test_name, cases[i].args, err.msg,
                    cases[i].want);
        }
    }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- options */

static void test_defaults(void)
{
    static const struct ok_case cases[] = {
        {"",
         NULL,
         {"name=job.sh", "tasks=1", "ppn=1", "nodes=0", "walltime=0", "cwd=/home/u/work",
          "hold=false", "mem_mb=0"}},
        {"",
         NULL,
         {"start_after=0", "!join", "!rerunnable", "!features", "!env", "!account", "!out_path",
          "!shell"}},
    };
    run_ok(cases, N(cases));

    /* Script name: base name, sanitised; stdin is STDIN. */
    struct qsub_req r;
    struct err err;
    char *argv[] = {"qsub", NULL};
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), "/a/b/my job.sh", CWD, NULL, NOW, &r, &err) ==
          0);
    CHECK_STR(r.name, "my_job.sh");
    CHECK_STR(r.script, PLAIN);
    qsub_free(&r);
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), NULL, CWD, NULL, NOW, &r, &err) == 0);
    CHECK_STR(r.name, "STDIN");
    qsub_free(&r);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), longname, CWD, NULL, NOW, &r, &err) == 0);
    CHECK_EQ(strlen(r.name), QSUB_MAX_NAME);
    qsub_free(&r);
    /* The client's cwd is cleaned. */
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), "j", "/home//u/./x/..", NULL, NOW, &r, &err) ==
          0);
    CHECK_STR(r.cwd, "/home/u");
    qsub_free(&r);
    qsub_free(NULL);
}

static void test_options(void)
{
    static const struct ok_case cases[] = {
        {"-N foo", NULL, {"name=foo"}},
        {"-Nfoo", NULL, {"name=foo"}},
        {"-N été.1", NULL, {"name=été.1"}},
        {"-A acct", NULL, {"account=acct"}},
        {"-Aacct", NULL, {"account=acct"}},
        {"-q batch", NULL, {"queue=batch"}},
        {"-qbatch", NULL, {"queue=batch"}},
        {"-o out.txt", NULL, {"out_path=/home/u/work/out.txt"}},
        {"-o/tmp/o", NULL, {"out_path=/tmp/o"}},
        {"-e ../err", NULL, {"err_path=/home/u/err"}},
        {"-e../err", NULL, {"err_path=/home/u/err"}},
        {"-o ./a/./b//c/../d", NULL, {"out_path=/home/u/work/a/b/d"}},
        {"-o '/a b/c'", NULL, {"out_path=/a b/c"}},
        {"-j oe", NULL, {"join=oe"}},
        {"-jeo", NULL, {"join=eo"}},
        {"-j n", NULL, {"!join"}},
        {"-d /scratch", NULL, {"cwd=/scratch"}},
        {"-dsub", NULL, {"cwd=/home/u/work/sub"}},
        {"-d ../../../..", NULL, {"cwd=/"}},
        {"-d sub -o o", NULL, {"cwd=/home/u/work/sub", "out_path=/home/u/work/o"}},
        {"-h", NULL, {"hold=true"}},
        {"-m abe -M a@b.c,d@e.f", NULL, {"mail_events=abe", "mail_users=a@b.c,d@e.f"}},
        {"-mn -Mu", NULL, {"mail_events=n", "mail_users=u"}},
        {"-r y", NULL, {"rerunnable=true"}},
        {"-rn", NULL, {"rerunnable=false"}},
        {"-S /bin/bash", NULL, {"shell=/bin/bash"}},
        {"-S/bin/zsh", NULL, {"shell=/bin/zsh"}},
        {"-hNfoo", NULL, {"hold=true", "name=foo"}},
        {"-hN foo", NULL, {"hold=true", "name=foo"}},
        {"-N x job.sh", NULL, {"name=x"}},
        {"job.sh -N x", NULL, {"name=x"}},
        {"-N x -- -job.sh", NULL, {"name=x"}},
        {"-N -dash", NULL, {"name=-dash"}},
        {"-N a -N b", NULL, {"name=b"}},
    };
    run_ok(cases, N(cases));
}

static void test_resources(void)
{
    static const struct ok_case cases[] = {
        {"-l nodes=2:ppn=4", NULL, {"nodes=2", "ppn=4", "tasks=8", "!features"}},
        {"-lnodes=3", NULL, {"nodes=3", "ppn=1", "tasks=3"}},
        {"-l nodes=2:ppn=4:fast:ib", NULL, {"tasks=8", "features=[\"fast\",\"ib\"]"}},
        {"-l nodes=2:fast:ppn=2:fast", NULL, {"tasks=4", "features=[\"fast\"]"}},
        {"-l nodes=1::ppn=2", NULL, {"tasks=2"}},
        {"-l NODES=2:PPN=2", NULL, {"tasks=4"}},
        {"-l procs=6", NULL, {"nodes=0", "ppn=1", "tasks=6"}},
        {"-l nodes=2:ppn=4:fast -l procs=3", NULL, {"nodes=0", "tasks=3", "!features"}},
        {"-l procs=3 -l nodes=2:ppn=4", NULL, {"nodes=2", "tasks=8"}},
        {"-l nodes=1000:ppn=1000", NULL, {"tasks=1000000"}},
        {"-l nodes=2:ppn=4,walltime=1:00:00", NULL, {"tasks=8", "walltime=3600"}},
        {"-l walltime=3600 -l mem=1gb", NULL, {"walltime=3600", "mem_mb=1024"}},
        {"-l walltime=1:00:00,mem=2gb,qos=high,",
         NULL,
         {"walltime=3600", "mem_mb=2048", "qos=high"}},
        {"-l walltime=90", NULL, {"walltime=90"}},
        {"-l walltime=1:30", NULL, {"walltime=90"}},
        {"-l walltime=10:00", NULL, {"walltime=600"}},
        {"-l walltime=100:00:00", NULL, {"walltime=360000"}},
        {"-l walltime=2:00:00:00", NULL, {"walltime=172800"}},
        {"-l walltime=3650:00:00:00", NULL, {"walltime=315360000"}},
        {"-l walltime=1 -l walltime=2", NULL, {"walltime=2"}},
        {"-l mem=1", NULL, {"mem_mb=1"}},
        {"-l mem=1048576", NULL, {"mem_mb=1"}},
        {"-l mem=1048577b", NULL, {"mem_mb=2"}},
        {"-l mem=1024kb", NULL, {"mem_mb=1"}},
        {"-l mem=1025kb", NULL, {"mem_mb=2"}},
        {"-l mem=512mb", NULL, {"mem_mb=512"}},
        {"-l mem=3Mb", NULL, {"mem_mb=3"}},
        {"-l mem=2GB", NULL, {"mem_mb=2048"}},
        {"-l mem=1tb", NULL, {"mem_mb=1048576"}},
        {"-l qos=high", NULL, {"qos=high"}},
        {"-l advres=r2", NULL, {"advres=r2"}},
        /* Limits the local resource manager applies (Torque's pbs_mom's): the
         * address space, the smaller of vmem and pvmem; the nice value. */
        {"-l vmem=2gb", NULL, {"vmem_mb=2048", "nice=0"}},
        {"-l vmem=2gb,pvmem=500mb", NULL, {"vmem_mb=500"}},
        {"-l pvmem=500mb -l vmem=3gb", NULL, {"vmem_mb=500"}},
        {"-l nice=5", NULL, {"nice=5", "vmem_mb=0"}},
        {"-l nice=-20", NULL, {"nice=-20"}},
        {"-l nice=19", NULL, {"nice=19"}},
        /* Torque's node groups: the same ppn keeps the per-node shape. */
        {"-l nodes=2:ppn=4+1:ppn=4", NULL, {"nodes=3", "ppn=4", "tasks=12"}},
        {"-l nodes=2:ppn=4+1:ppn=8", NULL, {"nodes=0", "ppn=1", "tasks=16"}},
        {"-l nodes=1:fast+1:ib", NULL, {"nodes=2", "tasks=2", "features=[\"fast\",\"ib\"]"}},
        {"-l ncpus=4", NULL, {"nodes=1", "ppn=4", "tasks=4", "!hosts"}},
        /* Host names: those hosts, so many processors on each. */
        {"-l nodes=n4:ppn=2", NULL, {"hosts=n4:2", "nodes=0", "ppn=1", "tasks=2"}},
        {"-l nodes=n1:ppn=2+n2:ppn=4", NULL, {"hosts=n1:2,n2:4", "nodes=0", "tasks=6"}},
        {"-l nodes=n1+n2", NULL, {"hosts=n1:1,n2:1", "tasks=2"}},
        {"-l nodes=n1+n2+n1:ppn=2", NULL, {"hosts=n1:3,n2:1", "tasks=4"}},
        {"-l nodes=node-1.cl:ppn=2:fast",
         NULL,
         {"hosts=node-1.cl:2", "tasks=2", "features=[\"fast\"]"}},
        {"-l nodes=n4:ppn=2 -l procs=3", NULL, {"!hosts", "tasks=3"}},
        {"-l nodes=n4:ppn=2 -l nodes=2", NULL, {"!hosts", "nodes=2", "tasks=2"}},
        {"-l host=n4", NULL, {"hosts=n4:1", "nodes=0", "ppn=1", "tasks=1"}},
        {"-l host=n4,ncpus=3", NULL, {"hosts=n4:3", "nodes=0", "ppn=1", "tasks=3"}},
        {"-l ncpus=3 -l host=n4", NULL, {"hosts=n4:3", "tasks=3"}},
        /* PBS Pro's select: chunks as nodes=N:ppn=C, a chunk's mem summed. */
        {"-l select=1:ncpus=2:mem=954MB", NULL, {"nodes=1", "ppn=2", "tasks=2", "mem_mb=954"}},
        {"-l select=3:ncpus=4:mpiprocs=4:mem=1gb",
         NULL,
         {"nodes=3", "ppn=4", "tasks=12", "mem_mb=3072"}},
        {"-l select=ncpus=2", NULL, {"nodes=1", "ppn=2", "tasks=2"}},
        {"-l select=2", NULL, {"nodes=2", "ppn=1", "tasks=2"}},
        {"-l select=2:ncpus=2+1:ncpus=2", NULL, {"nodes=3", "ppn=2", "tasks=6"}},
        {"-l select=2:ncpus=2 -l place=pack", NULL, {"nodes=1", "ppn=4", "tasks=4"}},
        {"-l place=pack -l select=2:ncpus=2", NULL, {"nodes=1", "ppn=4", "tasks=4"}},
        {"-l select=2:ncpus=2,place=scatter", NULL, {"nodes=2", "ppn=2", "tasks=4"}},
        /* pmem: per processor, made the job's; with mem the larger. */
        {"-l nodes=2:ppn=2,pmem=1gb", NULL, {"tasks=4", "mem_mb=4096"}},
        {"-l pmem=100mb,mem=1gb,procs=2", NULL, {"tasks=2", "mem_mb=1024"}},
        {"-l mem=1gb,pmem=1gb,procs=2", NULL, {"tasks=2", "mem_mb=2048"}},
        {"-o localhost:/tmp/x.out", NULL, {"out_path=/tmp/x.out"}},
        {"-p -5 -k oe -W group_list=g1", NULL, {"tasks=1", "group=g1"}},
        {"-W group_list=g2@localhost", NULL, {"group=g2"}},
        {"-q batch@localhost", NULL, {"queue=batch"}},
        {"-l nodes=2,naccesspolicy=singlejob", NULL, {"nodes=2", "exclusive=true"}},
        {"-l select=2:ncpus=1,place=scatter:excl", NULL, {"nodes=2", "exclusive=true"}},
        {"-l naccesspolicy=shared", NULL, {"exclusive=false"}},
    };
    run_ok(cases, N(cases));
}

static void test_w_and_env(void)
{
    static const struct ok_case cases[] = {
        {"-W x=QOS:high", NULL, {"qos=high", "!advres"}},
        {"-Wx=QOS:high", NULL, {"qos=high"}},
        {"-W x=QOS:high;ADVRES:r1", NULL, {"qos=high", "advres=r1"}},
        {"-W x=qos=low;;advres:r3;", NULL, {"qos=low", "advres=r3"}},
        {"-W X=ADVRES:r1", NULL, {"advres=r1", "!qos"}},
        {"-l qos=a -W x=QOS:b", NULL, {"qos=b"}},
        {"-v A=1,B=two", NULL, {"env={\"A\":\"1\",\"B\":\"two\"}"}},
        {"-v A=", NULL, {"env={\"A\":\"\"}"}},
        {"-v A=x=y", NULL, {"env={\"A\":\"x=y\"}"}},
        {"-v FOO", NULL, {"env={\"FOO\":\"foo\"}"}},
        {"-v BAR", NULL, {"env={\"BAR\":\"bar baz\"}"}},
        {"-v NOSUCH", NULL, {"!env"}},
        {"-v FOO=x,FOO", NULL, {"env={\"FOO\":\"foo\"}"}},
        {"-v A=1 -v A=2,B=3", NULL, {"env={\"A\":\"2\",\"B\":\"3\"}"}},
        {"-V",
         NULL,
         {"env={\"HOME\":\"/home/u\",\"PATH\":\"/usr/bin:/bin\",\"FOO\":\"foo\",\"BAR\":\"bar "
          "baz\"}"}},
        {"-V -v FOO=mine", NULL, {"env={\"FOO\":\"mine\",\"HOME\":\"/home/u\",*"}},
        {"-v FOO=mine -V", NULL, {"env={\"FOO\":\"mine\",\"HOME\":\"/home/u\",*"}},
        {"-hV", NULL, {"hold=true", "env={\"HOME\":\"/home/u\",*"}},
        {"-W depend=afterok:12", NULL, {"depend=afterok:12", "!qos"}},
        {"-W depend=afterok:12.host:13,afterany:7", NULL, {"depend=afterok:12.host:13,afterany:7"}},
        {"-W depend=afterany:7,x=QOS:q", NULL, {"depend=afterany:7", "qos=q"}},
        {"-W x=QOS:q,depend=after:1,afternotok:2", NULL, {"depend=after:1,afternotok:2"}},
        {"-t 1-100%10", NULL, {"array=1-100%10", "!array_pbs"}},
        {"-t 1,3,5-9", NULL, {"array=1,3,5-9"}},
        {"-J 1-9:2%3", NULL, {"array_pbs=1-9:2%3", "!array"}},
        {"-t 1-3 -J 0-4", NULL, {"array_pbs=0-4", "!array"}}, /* the last one wins */
        {"", "#PBS -t 0-3%2\n", {"array=0-3%2"}},
        {"-t 7", "#PBS -t 0-3%2\n", {"array=7"}}, /* the command line over the script */
    };
    run_ok(cases, N(cases));
}

/* ------------------------------------------------------------- directives */

static void test_directives(void)
{
    static const struct ok_case cases[] = {
        {"", "#!/bin/sh\n#PBS -N dname\n#PBS -l nodes=2:ppn=2\necho\n", {"name=dname", "tasks=4"}},
        {"", "#MSUB -A macct\n#PBS -q q1\nrun\n", {"account=macct", "queue=q1"}},
        {"", "#PBS -N a\necho hi\n#PBS -N b\n", {"name=a"}},
        {"", "#!/bin/sh\n\n# comment\n   \n#PBS -q q1\nhostname\n", {"queue=q1"}},
        {"", "#!/bin/sh\nhostname\n#PBS -q q1\n", {"!queue"}},
        {"", "  \t\n#PBS -q q2\n", {"queue=q2"}},
        {"", "#PBS -N 'my'name\n", {"name=myname"}},
        {"", "#PBS -N \"x\"y\n", {"name=xy"}},
        {"", "#PBS -o '/a b/c'\n", {"out_path=/a b/c"}},
        {"", "#PBS -l walltime=1:00:00 # one hour\n", {"walltime=3600"}},
        {"", "#PBS -j oe -m abe -h\n", {"join=oe", "mail_events=abe", "hold=true"}},
        {"", "#PBS\t-N tab\n", {"name=tab"}},
        {"", "#PBS -N crlf\r\necho\r\n", {"name=crlf"}},
        {"", "#PBSX -N no\n#PBS\n #PBS -N indented\n#MSUBX -N no\n", {"name=job.sh"}},
        {"", "#PBS \n#PBS    \n", {"name=job.sh"}},
        {"", "#PBS -l walltime=10\necho", {"walltime=10"}},
        {"", "#PBS -d sub\n", {"cwd=/home/u/work/sub"}},
        /* the command line wins */
        {"-N cli", "#PBS -N dname\n", {"name=cli"}},
        {"-l walltime=20", "#PBS -l nodes=2:ppn=4,walltime=10\n", {"tasks=8", "walltime=20"}},
        {"-l procs=2",
         "#PBS -l walltime=10\n#PBS -l nodes=3:fast\n",
         {"walltime=10", "tasks=2", "nodes=0", "!features"}},
        {"-W x=QOS:b", "#PBS -W x=QOS:a;ADVRES:r\n", {"qos=b", "advres=r"}},
        {"-v B=3", "#PBS -v A=1,B=2\n", {"env={\"A\":\"1\",\"B\":\"3\"}"}},
        {"-j n", "#PBS -j oe\n", {"!join"}},
        {"-r y", "#MSUB -r n\n", {"rerunnable=true"}},
    };
    run_ok(cases, N(cases));
}

/* ------------------------------------------------------------------- -a */

static long utc(int y, int mo, int d, int h, int mi, int s)
{
    struct tm t = {.tm_year = y - 1900,
                   .tm_mon = mo - 1,
                   .tm_mday = d,
                   .tm_hour = h,
                   .tm_min = mi,
                   .tm_sec = s};
    return (long)timegm(&t);
}

static long start_after(const char *date, long now)
{
    char *argv[] = {"qsub", "-a", (char *)date, NULL};
    struct qsub_req r;
    struct err err;
    if (qsub_parse(3, argv, PLAIN, strlen(PLAIN), "j", CWD, NULL, now, &r, &err) < 0) {
        fprintf(stderr, "    -a %s: %s\n", date, err.msg);
        return -1;
    }
    long v = r.start_after;
    qsub_free(&r);
    return v;
}

static void test_dates(void)
{
    struct {
        const char *date;
        long now;
        long want;
    } cases[] = {
        {"1300", NOW, utc(2024, 3, 15, 13, 0, 0)},
        {"1200", NOW, NOW}, /* now is not in the past */
        {"1200.30", NOW, NOW + 30},
        {"1159.59", NOW, utc(2024, 3, 16, 11, 59, 59)},
        {"1100", NOW, utc(2024, 3, 16, 11, 0, 0)},
        {"0000", utc(2024, 2, 29, 23, 0, 0), utc(2024, 3, 1, 0, 0, 0)},
        {"161000", NOW, utc(2024, 3, 16, 10, 0, 0)},
        {"151300", NOW, utc(2024, 3, 15, 13, 0, 0)},
        {"151100", NOW, utc(2024, 4, 15, 11, 0, 0)},
        {"140900", NOW, utc(2024, 4, 14, 9, 0, 0)},
        {"310900", utc(2024, 4, 30, 12, 0, 0), utc(2024, 5, 31, 9, 0, 0)},
        {"311000", utc(2024, 12, 31, 12, 0, 0), utc(2025, 1, 31, 10, 0, 0)},
        {"03161000", NOW, utc(2024, 3, 16, 10, 0, 0)},
        {"03141000", NOW, utc(2025, 3, 14, 10, 0, 0)},
        {"02291000", NOW, utc(2028, 2, 29, 10, 0, 0)},
        {"2403161000", NOW, utc(2024, 3, 16, 10, 0, 0)},
        {"6801010000", NOW, utc(2068, 1, 1, 0, 0, 0)},
        {"9901010000", NOW, utc(1999, 1, 1, 0, 0, 0)}, /* YY >= 69: 19YY, in the past: kept */
        {"202403161000.05", NOW, utc(2024, 3, 16, 10, 0, 5)},
        {"202001010000", NOW, utc(2020, 1, 1, 0, 0, 0)},
        {"202402291200", NOW, utc(2024, 2, 29, 12, 0, 0)},
    };
    for (size_t i = 0; i < N(cases); i++) {
        long got = start_after(cases[i].date, cases[i].now);
        if (got != cases[i].want) {
            test_failed_checks++;
            fprintf(stderr, "%s: -a %s: %ld, expected %ld\n", test_name, cases[i].date, got,
                    cases[i].want);
        }
    }
}

/* ----------------------------------------------------------------- errors */

/* What qsub reads without honouring is said on stderr (warnings), with
 * where it came from; what it honours is said nothing of. */
static void test_warnings(void)
{
    static const struct {
        const char *args, *script, *want; /* want NULL: no warning */
    } cases[] = {
        {"-k oe", NULL, "qsub: -k: warning: oe: moku writes the output"},
        {"-k n", NULL, NULL},
        {"-p 10", NULL, "qsub: -p: warning: 10: moku has no user priority"},
        {"-p 0", NULL, NULL},
        {"-l vmem=2gb", NULL, NULL},
        {"-l nice=5", NULL, NULL},
        {"-l file=1gb", NULL, "-l: warning: file=1gb"},
        {"-l naccesspolicy=singlejob", NULL, NULL},
        {"-l naccesspolicy=singleuser", NULL, "-l: warning: naccesspolicy=singleuser"},
        {"-l naccesspolicy=shared", NULL, NULL},
        {"-W group_list=g1", NULL, NULL},
        {"-l nodes=1:ppn=2+1:ppn=4", NULL, "groups with different ppn are asked for as 6"},
        {"-l select=2:ncpus=2", NULL, "place=free: moku puts each chunk on a node of its own"},
        {"-l select=2:ncpus=2,place=scatter", NULL, NULL},
        {"-l select=1:ncpus=2:mem=954MB", NULL, NULL},
        {"", "#!/bin/sh\n#PBS -k eo\ntrue\n", "job.sh:2: #PBS -k: warning: eo"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        struct qsub_req r;
        struct err err;
        if (parse(cases[i].args, cases[i].script, &r, &err) < 0) {
            test_failed_checks++;
            fprintf(stderr, "%s: '%s': %s\n", test_name, cases[i].args, err.msg);
            continue;
        }
        int ok =
            cases[i].want ? r.warnings && strstr(r.warnings, cases[i].want) : r.warnings == NULL;
        if (!ok) {
            test_failed_checks++;
            fprintf(stderr, "%s: '%s': warnings \"%s\", want \"%s\"\n", test_name, cases[i].args,
                    r.warnings ? r.warnings : "(none)", cases[i].want ? cases[i].want : "(none)");
        }
        qsub_free(&r);
    }
}

static void test_errors(void)
{
    static const struct bad_case cases[] = {
        {"-x", NULL, "qsub: unknown option '-x'"},
        {"-hx", NULL, "qsub: unknown option '-x'"},
        {"--help", NULL, "qsub: unknown option '--help'"},
        {"-N", NULL, "qsub: -N: missing argument"},
        {"-h -l", NULL, "qsub: -l: missing argument"},
        {"-t 10-1", NULL, "qsub: -t: array range '10-1' runs down (10 > 1)"},
        {"-t 1-10%0", NULL, "qsub: -t: slot limit %0 in '1-10%0'"},
        {"-t 1-3,2", NULL, "qsub: -t: array index 2 is given twice in '1-3,2'"},
        {"-t 0-1000000", NULL, "asks for more than 1000000 tasks"},
        {"-W depend=afterok", NULL, "names no job"},
        {"-W depend=beforeok:1", NULL, "'beforeok' is not supported"},
        {"-W depend=synccount:2", NULL, "'synccount' is not supported"},
        {"-W depend=later:1", NULL, "unknown dependency type 'later'"},
        {"-t", NULL, "qsub: -t: missing argument"},
        {"-t x", NULL, "qsub: -t: bad array index 'x' in 'x'"},
        {"-X", NULL, "qsub: -X: X11 forwarding is not supported"},
        {"-I -X", NULL, "qsub: -X: X11 forwarding is not supported"},
        {"-I -t 1-3", NULL, "qsub: -I: an interactive job cannot be an array (-t, -J)"},
        {"-I -J 1-3", NULL, "qsub: -I: an interactive job cannot be an array (-t, -J)"},
        {"a.sh b.sh", NULL, "qsub: unexpected extra argument 'b.sh'"},
        {"-N 'a b'", NULL, "qsub: -N: 'a b' contains white space"},
        {"-N ''", NULL, "qsub: -N: empty value"},
        {"-N xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL,
         "-N: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is longer than 64 "
         "bytes"},
        {"-N \x01x", NULL, "-N: '?x' contains a control character"},
        {"-N \xc3", NULL, "-N: '?' is not valid UTF-8"},
        {"-N \xc2\x85", NULL,
         "-N: '?"
         "?' contains a control character"},
        /* Bidi overrides and isolates, separators, zero-width: they would
         * turn other users' qstat lines around (issue 28). */
        {"-N ab\xe2\x80\xae"
         "cd",
         NULL,
         "-N: 'ab?"
         "?"
         "?cd' contains a format character"},
        {"-N x\xe2\x81\xa6y", NULL, "contains a format character (bidi control"},
        {"-N x\xe2\x80\xa8y", NULL, "contains a format character"},
        {"-N x\xe2\x80\x8b"
         "y",
         NULL, "contains a format character"},
        {"-N x\xef\xbb\xbf", NULL, "contains a format character"},
        {"-A x\xe2\x80\x8f", NULL,
         "qsub: -A: 'x?"
         "?"
         "?' contains a format character"},
        {"-o /tmp/x\xe2\x80\xab"
         "y",
         NULL, "contains a format character"},
        {"-A 'a b'", NULL, "qsub: -A: 'a b' contains white space"},
        {"-q ''", NULL, "qsub: -q: empty value"},
        {"-M 'a b'", NULL, "qsub: -M: bad mail address in 'a b'"},
        {"-M -oQ/tmp/x", NULL, "qsub: -M: bad mail address in '-oQ/tmp/x'"},
        {"-M a@b@c", NULL, "qsub: -M: bad mail address in 'a@b@c'"},
        {"-M a,", NULL, "qsub: -M: bad mail address list 'a,' (ends with ',')"},
        {"-M a,,b", NULL, "qsub: -M: bad mail address in 'a,,b'"},
        {"-M @host", NULL, "qsub: -M: bad mail address in '@host'"},
        {"-M 'a@b\nBcc: c'", NULL, "qsub: -M: bad mail address in 'a@b?Bcc: c'"},
        {"-N ../../etc/x", NULL, "qsub: -N: '../../etc/x' contains '/'"},
        {"-N a/b", NULL, "qsub: -N: 'a/b' contains '/'"},
        {"-l walltime=abc", NULL,
         "qsub: -l: bad walltime 'abc' (expected [[HH:]MM:]SS or seconds)"},
        {"-l walltime=", NULL, "qsub: -l: bad walltime ''"},
        {"-l walltime=1:2:3:4:5", NULL, "bad walltime '1:2:3:4:5'"},
        {"-l walltime=1:xx", NULL, "bad walltime '1:xx'"},
        {"-l walltime=1.5", NULL, "bad walltime '1.5'"},
        {"-l walltime=0", NULL, "qsub: -l: walltime '0' must be positive"},
        {"-l walltime=0:00:00", NULL, "walltime '0:00:00' must be positive"},
        {"-l walltime=-5", NULL, "walltime '-5' must be positive"},
        {"-l walltime=3650:00:00:01", NULL, "walltime '3650:00:00:01' is longer than 10 years"},
        {"-l walltime=INFINITY", NULL, "walltime 'INFINITY' is longer than 10 years"},
        {"-l walltime=00000000000000000000000000000000000000000000001:30", NULL,
         "bad walltime '00000000"},
        {"-l mem=abc", NULL,
         "qsub: -l: bad mem 'abc' (expected a number with b, kb, mb, gb or tb)"},
        {"-l mem=", NULL, "bad mem ''"},
        {"-l mem=10pb", NULL, "bad mem '10pb'"},
        {"-l mem=0", NULL, "qsub: -l: mem '0' must be positive"},
        {"-l mem=0gb", NULL, "mem '0gb' must be positive"},
        {"-l mem=2000000tb", NULL, "mem '2000000tb' is too large"},
        {"-l mem=9999999999999999999999", NULL, "bad mem '9999999999999999999999'"},
        {"-l nodes=0", NULL, "qsub: -l: bad nodes '0' (expected a whole number from 1 to 1000000)"},
        {"-l nodes=abc:ppn=0", NULL, "ppn"},
        {"-l nodes=", NULL, "bad nodes ''"},
        {"-l nodes=-1", NULL, "bad nodes '-1'"},
        {"-l nodes=1000001", NULL, "bad nodes '1000001'"},
        {"-l nodes=99999999999999999999", NULL, "bad nodes '99999999999999999999'"},
        {"-l nodes=2:ppn=0", NULL, "bad ppn '0'"},
        {"-l nodes=2:ppn=x", NULL, "bad ppn 'x'"},
        {"-l nodes=1000:ppn=1001", NULL,
         "nodes '1000:ppn=1001' asks for 1001000 processors, more than 1000000"},
        {"-l nodes=1+n4", NULL, "nodes=1+n4 mixes node counts and host names"},
        {"-l nodes=2:ppn=4+n3:ppn=1", NULL, "mixes node counts and host names"},
        {"-l nodes=n4:ppn=x", NULL, "ppn"},
        {"-l nodes=n4:mem=1", NULL, "unknown node property 'mem=1'"},
        {"-l nodes=n4+n_5/x", NULL, "'n_5/x' is not a host name"},
        {"-l host=n4,nodes=n5", NULL, "-l host=n4 and host names in nodes= both given"},
        {"-l host=n4,nodes=2", NULL, "one host is one node"},
        {"-l host=4n", NULL, "host=4n: not a host name"},
        {"-l nodes=1+", NULL, "bad nodes ''"},
        {"-l select=1:ncpus=2:host=n4", NULL, "select's host=n4"},
        {"-l select=1:gpus=2", NULL, "unknown resource 'gpus' in a select chunk"},
        {"-l select=0:ncpus=2", NULL, "bad select count '0'"},
        {"-l select=+", NULL, "bad select '+': an empty chunk"},
        {"-l select=1:ncpus=1+:", NULL, "an empty chunk"},
        {"-l select=", NULL, "an empty chunk"},
        {"-l nodes=+", NULL, "bad nodes ''"},
        {"-o localhost:", NULL, "qsub: -o: empty path"},
        {"-l place=pack,select=1000:ncpus=2000", NULL, "asks for more than moku's limits"},
        {"-l select=1:ncpus=x", NULL, "bad ncpus 'x'"},
        {"-l place=everywhere", NULL, "bad place 'everywhere'"},
        {"-l nice=20", NULL, "bad nice '20' (expected -20 to 19)"},
        {"-l naccesspolicy=mine", NULL, "bad naccesspolicy 'mine'"},
        {"-l vmem=lots", NULL, "bad mem 'lots'"},
        {"-p 1024", NULL, "qsub: -p: bad priority '1024' (expected -1024 to 1023)"},
        {"-k x", NULL, "qsub: -k: bad keep 'x'"},
        {"-J 4", NULL, "qsub: -J: bad array range '4' (PBS Pro's -J wants A-B[:STEP][%N])"},
        {"-J 4-4", NULL, "qsub: -J: array range '4-4' has one index"},
        {"-J 1-9:0", NULL, "qsub: -J: array range '1-9:0': the step must be at least 1"},
        {"-J 1,2", NULL, "qsub: -J: bad array index '1,2'"},
        {"-q batch@elsewhere.example", NULL,
         "qsub: -q: 'batch@elsewhere.example': the server is another host"},
        {"-W group_list=", NULL, "qsub: -W: bad group_list: empty value"},
        {"-W group_list=g1@elsewhere.example", NULL,
         "group_list=g1@elsewhere.example: names another host"},
        {"-l nodes=2:gpus=1", NULL,
         "unknown node property 'gpus=1' (moku knows ppn=P and features)"},
        {"-l nodes=2:f\x01", NULL, "'f?' contains a control character"},
        {"-l procs=0", NULL, "bad procs '0'"},
        {"-l foo=1", NULL,
         "qsub: -l: unknown resource 'foo' (moku knows nodes, procs, ncpus, select, place, "
         "walltime, mem, pmem, vmem, pvmem, nice, naccesspolicy, qos, advres; file is read and "
         "ignored)"},
        {"-l walltime", NULL, "qsub: -l: 'walltime': expected resource=value"},
        {"-l qos=", NULL, "qsub: -l: bad qos: empty value"},
        {"-l advres=a\x7f", NULL, "bad advres: 'a?' contains a control character"},
        {"-W stagein=f", NULL,
         "qsub: -W: unsupported attribute 'stagein' (moku knows x=, group_list= and depend=)"},
        {"-W x", NULL, "unsupported attribute 'x'"},
        {"-W x=FLAGS:RESTARTABLE", NULL,
         "qsub: -W: unsupported x= item 'FLAGS' (moku knows QOS:name and ADVRES:name)"},
        {"-W x=QOS", NULL, "unsupported x= item 'QOS'"},
        {"-W x=QOS:", NULL, "qsub: -W: bad QOS: empty value"},
        {"-W x=ADVRES:a;QOS:b;NACCESSPOLICY:SINGLEJOB", NULL,
         "unsupported x= item 'NACCESSPOLICY'"},
        {"-j xx", NULL, "qsub: -j: bad join 'xx' (expected oe, eo or n)"},
        {"-r maybe", NULL, "qsub: -r: expected y or n, got 'maybe'"},
        {"-m xyz", NULL, "qsub: -m: bad mail events 'xyz' (expected letters of 'abef', or 'n')"},
        {"-m an", NULL, "bad mail events 'an'"},
        {"-S bash", NULL, "qsub: -S: 'bash' is not an absolute path"},
        {"-S ''", NULL, "qsub: -S: empty value"},
        {"-v 1A=2", NULL, "qsub: -v: bad variable name '1A'"},
        {"-v A-B", NULL, "bad variable name 'A-B'"},
        {"-v =x", NULL, "bad variable name ''"},
        {"-v FUNC", NULL, "qsub: -v: value of FUNC contains a control character"},
        {"-o host:/path", NULL, "qsub: -o: 'host:/path': moku writes output on this host only"},
        {"-e ''", NULL, "qsub: -e: empty path"},
        {"-d a\x1b", NULL, "qsub: -d: path 'a?' contains a control character"},
        {"-a 12345", NULL, "qsub: -a: bad date '12345' (expected [[[[CC]YY]MM]DD]hhmm[.SS])"},
        {"-a abc", NULL, "bad date 'abc'"},
        {"-a 130", NULL, "bad date '130'"},
        {"-a 1300.5", NULL, "bad date '1300.5'"},
        {"-a 1300.", NULL, "bad date '1300.'"},
        {"-a 1300.60", NULL, "bad date '1300.60'"},
        {"-a 1300x", NULL, "bad date '1300x'"},
        {"-a 1234567890123", NULL, "bad date '1234567890123'"},
        {"-a 2400", NULL, "qsub: -a: bad date '2400': no such time"},
        {"-a 1260", NULL, "bad date '1260': no such time"},
        {"-a 321000", NULL, "bad date '321000': no such time"},
        {"-a 001000", NULL, "bad date '001000': no such time"},
        {"-a 13011000", NULL, "bad date '13011000': no such time"},
        {"-a 2402301000", NULL, "qsub: -a: bad date '2402301000': no such date"},
        {"-a 202302291000", NULL, "bad date '202302291000': no such date"},
        {"-a 196001010000", NULL, "date '196001010000' is out of range"},
        /* the script */
        {"", "", "job.sh: script is empty"},
        {"", "  \n\t\n", "job.sh: script is empty"},
        {"", "#!/bin/sh\necho\necho \xff\n", "job.sh:3: not valid UTF-8"},
        {"", "#!/bin/sh\xc0\xaf\n", "job.sh:1: not valid UTF-8"},
        {"", "echo \xed\xa0\x80\n", "job.sh:1: not valid UTF-8"}, /* a surrogate */
        /* directives */
        {"", "#PBS -l walltime=abc\n", "job.sh:1: #PBS -l: bad walltime 'abc'"},
        {"", "#!/bin/sh\n#PBS -x\n", "job.sh:2: #PBS: unknown option '-x'"},
        {"", "#MSUB -t 3-1\n", "job.sh:1: #MSUB -t: array range '3-1' runs down"},
        {"", "#PBS -N \"abc\n", "job.sh:1: #PBS: unterminated \" quote"},
        {"", "#PBS -N 'abc\n", "job.sh:1: #PBS: unterminated ' quote"},
        {"", "#PBS -N a b\n", "job.sh:1: #PBS: unexpected argument 'b'"},
        {"", "#PBS -N\n", "job.sh:1: #PBS -N: missing argument"},
        {"", "#PBS -N ok\n\n#MSUB -l mem=1xb\n", "job.sh:3: #MSUB -l: bad mem '1xb'"},
        /* a bad directive fails even when the command line would override it */
        {"-N ok", "#PBS -N 'a b'\n", "job.sh:1: #PBS -N: 'a b' contains white space"},
    };
    run_bad(cases, N(cases));
}

static void test_errors_args(void)
{
    struct qsub_req r;
    struct err err;
    char *argv[] = {"/usr/bin/msub", "-x", NULL};
    /* argv[0]'s base name prefixes messages */
    CHECK(qsub_parse(2, argv, PLAIN, strlen(PLAIN), "j", CWD, NULL, NOW, &r, &err) < 0);
    CHECK_STR(err.msg, "msub: unknown option '-x'");
    char *argv2[] = {"moku submit", "-z", NULL};
    CHECK(qsub_parse(2, argv2, PLAIN, strlen(PLAIN), "j", CWD, NULL, NOW, &r, &err) < 0);
    CHECK_STR(err.msg, "moku submit: unknown option '-z'");
    /* the working directory */
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), "j", "rel", NULL, NOW, &r, &err) < 0);
    CHECK_HAS(err.msg, "msub: working directory 'rel' is not a usable absolute path");
    CHECK(qsub_parse(1, argv, PLAIN, strlen(PLAIN), "j", NULL, NULL, NOW, &r, &err) < 0);
    CHECK_HAS(err.msg, "working directory '(none)'");
    /* NUL bytes and size */
    CHECK(parse_n("", "#!/bin/sh\n\0x\n", 13, &r, &err) < 0);
    CHECK_STR(err.msg, "job.sh:2: NUL byte in the script");
    CHECK(parse_n("", NULL, 0, &r, &err) < 0);
    CHECK_HAS(err.msg, "script is empty");
    size_t big = (size_t)QSUB_MAX_SCRIPT + 1;
    char *s = xmalloc(big);
    memset(s, 'x', big);
    CHECK(parse_n("", s, big, &r, &err) < 0);
    CHECK_STR(err.msg, "job.sh: script larger than 1 MiB");
    CHECK(parse_n("-N x", s, big - 1, &r, &err) == 0); /* exactly 1 MiB is fine */
    CHECK_EQ(strlen(r.script), QSUB_MAX_SCRIPT);
    qsub_free(&r);
    free(s);
}

/* -V with more than the environment limits allow. */
static void test_env_limits(void)
{
    struct qsub_req r;
    struct err err;
    char *argv[] = {"qsub", "-V", NULL};
    char **big = xcalloc(QSUB_MAX_ENV + 2, sizeof *big);
    for (int i = 0; i < QSUB_MAX_ENV + 1; i++) {
        big[i] = xmalloc(32);
        snprintf(big[i], 32, "V%d=x", i);
    }
    CHECK(qsub_parse(2, argv, PLAIN, strlen(PLAIN), "j", CWD, big, NOW, &r, &err) < 0);
    CHECK_STR(err.msg, "qsub: -V: more than 4096 environment variables");
    free(big[QSUB_MAX_ENV]);
    big[QSUB_MAX_ENV] = NULL;
    CHECK(qsub_parse(2, argv, PLAIN, strlen(PLAIN), "j", CWD, big, NOW, &r, &err) == 0);
    CHECK_EQ(r.nenv, QSUB_MAX_ENV);
    qsub_free(&r);
    for (int i = 0; i < QSUB_MAX_ENV; i++)
        free(big[i]);
    /* 20 values of 60000 bytes: over 1 MiB in all */
    for (int i = 0; i < 20; i++) {
        big[i] = xmalloc(60010);
        int n = snprintf(big[i], 60010, "V%d=", i);
        memset(big[i] + n, 'y', 60000);
        big[i][n + 60000] = '\0';
    }
    big[20] = NULL;
    CHECK(qsub_parse(2, argv, PLAIN, strlen(PLAIN), "j", CWD, big, NOW, &r, &err) < 0);
    CHECK_HAS(err.msg, "qsub: request: 'env': ");
    CHECK_HAS(err.msg, "more than 1 MiB");
    for (int i = 0; i < 20; i++)
        free(big[i]);
    free(big);
}

static void test_script_arg(void)
{
    struct {
        const char *args;
        const char *path; /* NULL: stdin; "ERR:..." an error */
        int inter;        /* whether the command line asks for -I */
    } cases[] = {
        {"", NULL, 0},
        {"job.sh", "job.sh", 0},
        {"-N x job.sh", "job.sh", 0},
        {"-Nx -l walltime=1 job.sh -h", "job.sh", 0},
        {"-N job.sh", NULL, 0},
        {"-- -odd.sh", "-odd.sh", 0},
        {"-", "-", 0},
        {"a b", "ERR:qsub: unexpected extra argument 'b'", 0},
        {"-x a", "ERR:qsub: unknown option '-x'", 0},
        {"-t 1-3 a", "a", 0},
        {"-J", "ERR:qsub: -J: missing argument", 0},
        {"-l", "ERR:qsub: -l: missing argument", 0},
        {"-l bogus=1 a", "a", 0}, /* values are not checked here */
        {"-I", NULL, 1},
        {"-hI job.sh", "job.sh", 1},
        {"job.sh -l walltime=1 -I", "job.sh", 1},
        {"-N -I", NULL, 0}, /* -I is -N's value */
        {"-NI", NULL, 0},   /* likewise, in the same word */
        {"-- -I", "-I", 0}, /* an operand */
        {"-X",
         "ERR:qsub: -X: X11 forwarding is not supported (an interactive job's terminal is "
         "relayed, not its X display)",
         0},
    };
    for (size_t i = 0; i < N(cases); i++) {
        struct cmdline c;
        split(&c, cases[i].args);
        const char *path = "unset";
        struct err err = {""};
        int inter = -1;
        int rc = qsub_script_arg(c.argc, c.argv, &path, &inter, &err);
        const char *want = cases[i].path;
        if (want && strncmp(want, "ERR:", 4) == 0) {
            CHECK(rc < 0);
            CHECK_STR(err.msg, want + 4);
            CHECK_STR(path, "unset");
        } else {
            CHECK(rc == 0);
            if (want)
                CHECK_STR(path, want);
            else
                CHECK(path == NULL);
            if (inter != cases[i].inter)
                fprintf(stderr, "%s: '%s': interactive %d, expected %d\n", test_name, cases[i].args,
                        inter, cases[i].inter);
            CHECK(inter == cases[i].inter);
        }
    }
    const char *path = NULL;
    struct cmdline c;
    split(&c, "-I");
    CHECK(qsub_script_arg(c.argc, c.argv, &path, NULL, NULL) == 0); /* interactive may be NULL */
}

/* ------------------------------------------------------------------- JSON */

/* A request with every field set. */
static void full_req(struct qsub_req *r)
{
    const char *script = "#!/bin/bash\n#PBS -N full\n#PBS -l nodes=2:ppn=3:fast:ib\necho é\n";
    struct err err = {""};
    CHECK(parse("-A acct -q batch -W x=QOS:high;ADVRES:r1 -o out -e /tmp/err -j oe -d /scratch "
                "-a 1300 -h -l walltime=2:00:00,mem=3gb,vmem=4gb,nice=3 -v A=1,FOO -m abe -M me@x "
                "-r y -S "
                "/bin/bash",
                script, r, &err) == 0);
    CHECK_STR(err.msg, "");
}

static void check_same(const struct qsub_req *a, const struct qsub_req *b)
{
    json_t *ja = qsub_to_json(a), *jb = qsub_to_json(b);
    CHECK(ja && jb && json_equal(ja, jb));
    json_decref(ja);
    json_decref(jb);
    CHECK_STR(a->name, b->name);
    CHECK_STR(a->script, b->script);
    CHECK_EQ(a->tasks, b->tasks);
    CHECK_EQ(a->nenv, b->nenv);
    for (size_t i = 0; i < a->nenv && i < b->nenv; i++) {
        CHECK_STR(a->env[i].name, b->env[i].name);
        CHECK_STR(a->env[i].value, b->env[i].value);
    }
}

static void test_json_roundtrip(void)
{
    struct qsub_req r, back;
    full_req(&r);
    check_dump("full", &r,
               (const char *const[]){"name=full", "account=acct", "queue=batch", "qos=high",
                                     "advres=r1", "out_path=/home/u/work/out", "err_path=/tmp/err",
                                     "join=oe"});
    check_dump("full", &r,
               (const char *const[]){"cwd=/scratch", "start_after=1710507600", "hold=true",
                                     "nodes=2", "ppn=3", "tasks=6", "features=[\"fast\",\"ib\"]",
                                     "walltime=7200"});
    check_dump("full", &r,
               (const char *const[]){"mem_mb=3072", "vmem_mb=4096", "nice=3",
                                     "env={\"A\":\"1\",\"FOO\":\"foo\"}", "mail_events=abe",
                                     "mail_users=me@x", "rerunnable=true", "shell=/bin/bash",
                                     NULL});
    json_t *j = qsub_to_json(&r);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    json_error_t jerr;
    json_t *j2 = json_loads(text, 0, &jerr);
    CHECK(j2 != NULL);
    struct err err = {""};
    CHECK(qsub_from_json(j2, &back, &err) == 0);
    CHECK_STR(err.msg, "");
    check_same(&r, &back);
    qsub_free(&back);
    json_decref(j2);
    free(text);
    qsub_free(&r);

    /* The minimal request, and the defaults of absent and null fields. */
    CHECK(parse("", NULL, &r, &err) == 0);
    j = qsub_to_json(&r);
    CHECK(qsub_from_json(j, &back, &err) == 0);
    check_same(&r, &back);
    CHECK_EQ(back.rerunnable, -1);
    CHECK_EQ(back.join, QSUB_JOIN_NONE);
    qsub_free(&back);
    json_decref(j);
    qsub_free(&r);
    j = json_pack("{s:s, s:s, s:s, s:n, s:n, s:n}", "name", "n", "cwd", "/", "script", "x",
                  "account", "tasks", "env");
    CHECK(qsub_from_json(j, &back, &err) == 0);
    CHECK_EQ(back.tasks, 1);
    CHECK_EQ(back.ppn, 1);
    CHECK(back.account == NULL);
    qsub_free(&back);
    json_decref(j);
}

/* The base request's JSON with key set to the JSON text v (NULL: removed). */
static json_t *with(const char *key, const char *v)
{
    struct qsub_req r;
    full_req(&r);
    json_t *j = qsub_to_json(&r);
    qsub_free(&r);
    if (!v) {
        json_object_del(j, key);
        return j;
    }
    json_error_t e;
    json_t *val = json_loads(v, JSON_DECODE_ANY, &e);
    CHECK(val != NULL);
    json_object_set_new(j, key, val);
    return j;
}

static void expect_reject(const char *what, json_t *j, const char *want)
{
    struct qsub_req r = {.name = (char *)"untouched"};
    struct err err = {""};
    if (qsub_from_json(j, &r, &err) == 0) {
        test_failed_checks++;
        fprintf(stderr, "%s: %s accepted, expected \"%s\"\n", test_name, what, want);
        qsub_free(&r);
    } else if (!strstr(err.msg, want)) {
        test_failed_checks++;
        fprintf(stderr, "%s: %s: \"%s\" lacks \"%s\"\n", test_name, what, err.msg, want);
    }
    CHECK_STR(r.name, "untouched");
    json_decref(j);
}

static void test_json_hostile(void)
{
    static const struct {
        const char *key;
        const char *value; /* JSON text; NULL: key removed */
        const char *want;
    } cases[] = {
        {"name", NULL, "request: 'name': missing"},
        {"cwd", "null", "request: 'cwd': missing"},
        {"script", NULL, "request: 'script': missing"},
        {"name", "5", "request: 'name': expected a string"},
        {"name", "[\"a\"]", "'name': expected a string"},
        {"name", "{}", "'name': expected a string"},
        {"name", "true", "'name': expected a string"},
        {"name", "\"\"", "'name': empty value"},
        {"name", "\"a b\"", "'name': 'a b' contains white space"},
        {"name", "\"a\\nb\"", "'name': 'a?b' contains a control character"},
        {"name", "\"a\\u0085\"", "contains a control character"},
        {"name", "\"a\\u202eb\"",
         "'name': 'a?"
         "?"
         "?b' contains a format character"},
        {"name", "\"a\\u2029\"", "contains a format character"},
        {"account", "\"\\u2066x\"", "contains a format character"},
        {"name", "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
         "'name': longer than 64 bytes"},
        {"account", "\"a\\tb\"", "'account': 'a?b' contains white space"},
        {"queue", "1.5", "'queue': expected a string"},
        {"qos", "\"\"", "'qos': empty value"},
        {"cwd", "\"relative\"", "'cwd': 'relative' is not an absolute path"},
        {"out_path", "\"o\"", "'out_path': 'o' is not an absolute path"},
        {"err_path", "\"/a\\u001b[31m\"", "'err_path': '/a?[31m' contains a control character"},
        {"shell", "\"\"", "'shell': empty value"},
        {"join", "\"xx\"", "'join': expected \"oe\", \"eo\" or \"n\""},
        {"join", "1", "'join': expected"},
        {"hold", "1", "'hold': expected true or false"},
        {"hold", "\"true\"", "'hold': expected true or false"},
        {"rerunnable", "\"y\"", "'rerunnable': expected true or false"},
        {"tasks", "\"4\"", "'tasks': expected an integer"},
        {"tasks", "4.0", "'tasks': expected an integer"},
        {"tasks", "1e300", "'tasks': expected an integer"},
        {"tasks", "0", "'tasks': 1..1000000 expected, got 0"},
        {"nice", "20", "'nice': -20..19 expected, got 20"},
        {"hosts", "\"n1:2,n1:3\"", "'hosts': 'n1:2,n1:3' names a host twice"},
        {"hosts", "\"n1\"", "'hosts': 'n1' is not a host list"},
        {"hosts", "\"n1:2,\"", "is not a host list"},
        {"hosts", "\"n1:0\"", "'hosts': 'n1:0': bad processor count"},
        {"hosts", "\"n1:2x\"", "bad processor count"},
        {"hosts", "\"1n:2\"", "is not a host list"},
        {"hosts", "\"n1:6\"", "hosts 'n1:6' and nodes 2, tasks 6 disagree"},
        {"nice", "-21", "'nice': -20..19 expected, got -21"},
        {"vmem_mb", "-1", "'vmem_mb': 0..1099511627776 expected, got -1"},
        {"tasks", "9223372036854775807", "'tasks': 1..1000000 expected, got 9223372036854775807"},
        {"tasks", "-9223372036854775808", "'tasks': 1..1000000 expected"},
        {"nodes", "-1", "'nodes': 0..1000000 expected, got -1"},
        {"ppn", "4294967297", "'ppn': 1..1000000 expected"},
        {"walltime", "315360001", "'walltime': 0..315360000 expected, got 315360001"},
        {"walltime", "-5", "'walltime': 0..315360000 expected, got -5"},
        {"mem_mb", "1099511627777", "'mem_mb': 0..1099511627776 expected"},
        {"start_after", "-1", "'start_after': 0..253402300799 expected, got -1"},
        {"nodes", "3", "request: nodes 3, ppn 3 and tasks 6 disagree"},
        {"tasks", "7", "nodes 2, ppn 3 and tasks 7 disagree"},
        {"features", "\"a\"", "'features': expected an array of strings"},
        {"features", "[1]", "'features': expected a string"},
        {"features", "[\"a b\"]", "'features': 'a b' contains white space"},
        {"features", "[[[[[[[[[[[]]]]]]]]]]]", "'features': expected a string"},
        {"features", "[\"\"]", "'features': empty value"},
        {"env", "[]", "'env': expected an object of strings"},
        {"env", "{\"1A\":\"x\"}", "'env': bad variable name '1A'"},
        {"env", "{\"\":\"x\"}", "'env': bad variable name ''"},
        {"env", "{\"A\":5}", "'env': expected a string"},
        {"env", "{\"A\":{\"B\":\"c\"}}", "'env': expected a string"},
        {"env", "{\"A\":\"a\\nb\"}", "'env': value of A contains a control character"},
        {"mail_events", "\"xyz\"", "'mail_events': bad mail events 'xyz'"},
        {"mail_users", "\"a b\"", "'mail_users': bad mail address in 'a b'"},
        {"mail_users", "\"-t\"", "'mail_users': bad mail address in '-t'"},
        {"name", "\"../x\"", "'name': '../x' contains '/'"},
        {"script", "\"\"", "'script': script is empty"},
        {"script", "\"  \\n\"", "'script': script is empty"},
        {"script", "7", "'script': expected a string"},
        {"bogus", "1", "request: unknown field 'bogus'"},
        {"Name", "\"x\"", "request: unknown field 'Name'"},
        {"", "1", "request: unknown field ''"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        char what[128];
        snprintf(what, sizeof what, "%s=%s", cases[i].key, cases[i].value ? cases[i].value : "-");
        expect_reject(what, with(cases[i].key, cases[i].value), cases[i].want);
    }

    /* Not objects at all. */
    expect_reject("NULL", NULL, "request: not a JSON object");
    expect_reject("array", json_array(), "request: not a JSON object");
    expect_reject("string", json_string("{}"), "request: not a JSON object");

    /* NUL bytes in values and keys. */
    json_t *j = with("name", NULL);
    json_object_set_new(j, "name", json_stringn("a\0b", 3));
    expect_reject("NUL in name", j, "'name': contains a NUL byte");
    j = with("script", NULL);
    json_object_set_new(j, "script", json_stringn("echo\0rm -rf /", 13));
    expect_reject("NUL in script", j, "'script': contains a NUL byte");
    j = with("bogus", NULL);
    json_object_setn_new(j, "name\0x", 6, json_string("x"));
    expect_reject("NUL in key", j, "request: unknown field 'name'");
    j = with("env", NULL);
    json_t *env = json_object();
    json_object_setn_new(env, "A\0B", 3, json_string("x"));
    json_object_set_new(j, "env", env);
    expect_reject("NUL in env key", j, "'env': bad variable name 'A'");
    j = with("env", NULL);
    json_object_set_new(j, "env", json_pack("{s:o}", "A", json_stringn("x\0y", 3)));
    expect_reject("NUL in env value", j, "'env': contains a NUL byte");
    j = with("features", NULL);
    json_object_set_new(j, "features", json_pack("[o]", json_stringn("f\0g", 3)));
    expect_reject("NUL in feature", j, "'features': contains a NUL byte");

    /* Deep nesting where a string belongs. */
    json_t *deep = json_string("x");
    for (int i = 0; i < 10000; i++) {
        json_t *a = json_array();
        json_array_append_new(a, deep);
        deep = a;
    }
    j = with("name", NULL);
    json_object_set_new(j, "name", deep);
    expect_reject("deep", j, "'name': expected a string");

    /* Sizes: script over 1 MiB, too many features and variables, env over 1 MiB. */
    size_t big = (size_t)QSUB_MAX_SCRIPT + 1;
    char *s = xmalloc(big + 1);
    memset(s, 'x', big);
    s[big] = '\0';
    j = with("script", NULL);
    json_object_set_new(j, "script", json_string(s));
    expect_reject("big script", j, "'script': longer than 1048576 bytes");
    j = with("name", NULL);
    json_object_set_new(j, "name", json_string(s));
    expect_reject("big name", j, "'name': longer than 64 bytes");
    free(s);
    json_t *feats = json_array();
    for (int i = 0; i <= QSUB_MAX_FEATURES; i++) {
        char f[16];
        snprintf(f, sizeof f, "f%d", i);
        json_array_append_new(feats, json_string(f));
    }
    j = with("features", NULL);
    json_object_set_new(j, "features", feats);
    expect_reject("features", j, "'features': more than 64 features");
    env = json_object();
    for (int i = 0; i <= QSUB_MAX_ENV; i++) {
        char k[16];
        snprintf(k, sizeof k, "V%d", i);
        json_object_set_new(env, k, json_string("x"));
    }
    j = with("env", NULL);
    json_object_set_new(j, "env", env);
    expect_reject("env count", j, "'env': more than 4096 variables");
    env = json_object();
    char *val = xmalloc(60001);
    memset(val, 'v', 60000);
    val[60000] = '\0';
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "V%d", i);
        json_object_set_new(env, k, json_string(val));
    }
    free(val);
    j = with("env", NULL);
    json_object_set_new(j, "env", env);
    expect_reject("env bytes", j, "'env': 1200");
}

/* qsub_check on requests built by hand. */
/* -I: no script (stdin is the terminal), or a script whose directives are
 * read and whose body is not sent; "#PBS -I" makes a job interactive too;
 * the flag travels and comes back through JSON. */
static void test_interactive(void)
{
    struct qsub_req r;
    struct err err = {""};
    CHECK(parse_n("-I -l walltime=10:00", NULL, 0, &r, &err) == 0);
    CHECK(r.interactive == 1);
    CHECK(r.script == NULL);
    CHECK(r.walltime == 600);
    CHECK_STR(r.name, "job.sh");
    json_t *j = qsub_to_json(&r);
    CHECK(j && json_is_true(json_object_get(j, "interactive")));
    CHECK(j && !json_object_get(j, "script"));
    struct qsub_req back;
    CHECK(qsub_from_json(j, &back, &err) == 0);
    CHECK(back.interactive == 1 && back.script == NULL && back.walltime == 600);
    qsub_free(&back);
    json_decref(j);
    qsub_free(&r);

    const char *script = "#!/bin/sh\n#PBS -N shell\n#PBS -l nodes=1:ppn=2\necho body\n";
    CHECK(parse("-I", script, &r, &err) == 0);
    CHECK(r.interactive == 1 && r.script == NULL);
    CHECK_STR(r.name, "shell");
    CHECK(r.tasks == 2);
    qsub_free(&r);

    CHECK(parse("", "#PBS -I\n#PBS -N viadir\n", &r, &err) == 0);
    CHECK(r.interactive == 1 && r.script == NULL);
    CHECK_STR(r.name, "viadir");
    qsub_free(&r);

    /* a script's directives are still checked under -I */
    CHECK(parse("-I", "#PBS -l walltime=abc\n", &r, &err) < 0);
    CHECK(strstr(err.msg, "job.sh:1: #PBS -l: bad walltime") != NULL);
    CHECK(parse("", "#PBS -X\n", &r, &err) < 0);
    CHECK_STR(err.msg, "job.sh:1: #PBS -X: X11 forwarding is not supported (an interactive "
                       "job's terminal is relayed, not its X display)");
    /* no script and no -I: what it always was */
    CHECK(parse_n("-h", NULL, 0, &r, &err) < 0);
    CHECK_STR(err.msg, "job.sh: script is empty");
    CHECK(parse("", "", &r, &err) < 0);
    CHECK_STR(err.msg, "job.sh: script is empty");

    /* the wire: interactive with a script, or with an array, is refused */
    j = json_pack("{s:s, s:s, s:b}", "name", "n", "cwd", "/", "interactive", 1);
    CHECK(qsub_from_json(j, &back, &err) == 0);
    CHECK(back.interactive == 1);
    qsub_free(&back);
    json_decref(j);
    expect_reject(
        "interactive with script",
        json_pack("{s:s, s:s, s:b, s:s}", "name", "n", "cwd", "/", "interactive", 1, "script", "x"),
        "request: 'script' given with 'interactive'");
    expect_reject("interactive array",
                  json_pack("{s:s, s:s, s:b, s:s}", "name", "n", "cwd", "/", "interactive", 1,
                            "array", "1-3"),
                  "request: 'interactive' with an array");
    expect_reject(
        "interactive not boolean",
        json_pack("{s:s, s:s, s:i, s:s}", "name", "n", "cwd", "/", "interactive", 2, "script", "x"),
        "request: 'interactive'");
}

static void test_check(void)
{
    struct qsub_req r = {
        .name = "n", .cwd = "/", .script = "x", .ppn = 1, .tasks = 1, .rerunnable = -1};
    struct err err;
    CHECK(qsub_check(&r, &err) == 0);
    r.ppn = 2;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_HAS(err.msg, "request: nodes 0, ppn 2 and tasks 1 disagree");
    r.ppn = 1;
    r.rerunnable = 3;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'rerunnable': -1, 0 or 1 expected");
    r.rerunnable = 0;
    r.hold = 2;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'hold': 0 or 1 expected");
    r.hold = 0;
    char *feats[] = {"a", "a b"};
    r.features = feats;
    r.nfeatures = 2;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'features': 'a b' contains white space");
    r.nfeatures = 0;
    struct qsub_env env[] = {{"A", "1"}, {"A", "2"}};
    r.env = env;
    r.nenv = 2;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'env': variable A given twice");
    r.nenv = 0;
    r.script = "\xff";
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'script': line 1: not valid UTF-8");
    r.script = "x";
    r.array = "1-4";
    r.array_pbs = "1-4";
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_HAS(err.msg, "'array' and 'array_pbs' both given");
    r.array_pbs = NULL;
    CHECK(qsub_check(&r, &err) == 0);
    r.array = "4-1";
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_HAS(err.msg, "request: 'array': array range '4-1' runs down");
    r.array = NULL;
    r.array_pbs = "1-4:0";
    CHECK(qsub_check(&r, &err) < 0);
    r.array_pbs = NULL;
    r.name = NULL;
    CHECK(qsub_check(&r, &err) < 0);
    CHECK_STR(err.msg, "request: 'name': missing");
    CHECK(qsub_check(&r, NULL) < 0); /* err is optional */
}

/* Random command lines and scripts from pieces (and random bytes): the parser
 * either refuses or makes a request that checks, and that survives the JSON
 * round trip unchanged. */
static unsigned long fuzz_state = 12345;

static unsigned fuzz_rand(unsigned n)
{
    fuzz_state = fuzz_state * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned)((fuzz_state >> 33) % n);
}

static const char *fuzz_word(char *buf)
{
    static const char *const pieces[] = {
        "-N",
        "-l",
        "nodes=2:ppn=3:f",
        "walltime=1:00",
        "mem=3gb",
        "procs=4",
        "-W",
        "x=QOS:a;ADVRES:b",
        "-v",
        "A=1,FOO",
        "-V",
        "-h",
        "-a",
        "1300",
        "0229101",
        "-o",
        "../x",
        "-d",
        "/tmp",
        "-j",
        "oe",
        "-m",
        "abe",
        "-r",
        "y",
        "-S",
        "/bin/sh",
        "--",
        "-",
        "-hV",
        "-Nx",
        "-q",
        "q",
        "-A",
        "a",
        "",
    };
    if (fuzz_rand(10))
        return pieces[fuzz_rand(N(pieces))];
    unsigned n = fuzz_rand(8);
    for (unsigned i = 0; i < n; i++)
        buf[i] = (char)(1 + fuzz_rand(255));
    buf[n] = '\0';
    return buf;
}

static void test_fuzz(void)
{
    int accepted = 0;
    for (int iter = 0; iter < 3000; iter++) {
        char bufs[16][16], *argv[18], script[512];
        int argc = 0;
        argv[argc++] = "qsub";
        for (unsigned i = fuzz_rand(8); i > 0; i--) {
            argv[argc] = (char *)fuzz_word(bufs[argc]);
            argc++;
        }
        argv[argc] = NULL;
        size_t len = 0;
        for (unsigned i = fuzz_rand(6); i > 0; i--) {
            char w1[16], w2[16];
            const char *tag = fuzz_rand(2) ? "#PBS" : "#MSUB", *a = fuzz_word(w1);
            len += (size_t)snprintf(script + len, sizeof script - len, "%s %s %s\n", tag, a,
                                    fuzz_word(w2));
        }
        len += (size_t)snprintf(script + len, sizeof script - len, "echo %u\n", fuzz_rand(100));
        struct qsub_req r, back;
        struct err err;
        if (qsub_parse(argc, argv, script, len, "f.sh", CWD, envp, NOW, &r, &err) < 0) {
            CHECK(err.msg[0] != '\0');
            continue;
        }
        accepted++;
        CHECK(qsub_check(&r, &err) == 0);
        json_t *j = qsub_to_json(&r);
        CHECK(j != NULL);
        if (j && qsub_from_json(j, &back, &err) == 0) {
            check_same(&r, &back);
            qsub_free(&back);
        } else {
            CHECK(0);
        }
        json_decref(j);
        qsub_free(&r);
    }
    CHECK(accepted > 100); /* 154 of 3000: enough valid requests to matter */
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    TEST_RUN(test_defaults);
    TEST_RUN(test_options);
    TEST_RUN(test_resources);
    TEST_RUN(test_w_and_env);
    TEST_RUN(test_directives);
    TEST_RUN(test_dates);
    TEST_RUN(test_warnings);
    TEST_RUN(test_errors);
    TEST_RUN(test_errors_args);
    TEST_RUN(test_env_limits);
    TEST_RUN(test_script_arg);
    TEST_RUN(test_json_roundtrip);
    TEST_RUN(test_json_hostile);
    TEST_RUN(test_interactive);
    TEST_RUN(test_check);
    TEST_RUN(test_fuzz);
    return TEST_DONE();
}
