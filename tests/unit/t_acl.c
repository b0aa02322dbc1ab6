/* t_acl — reservation access control lists: parsing, printing, access rules. */
#include "policy/acl.h"

#include "test.h"

#include "util/mem.h"

/* --------------------------------------------------------------- helpers */

/* An ACL from SRCFG-style attributes separated by ';' ("USERLIST=bob;TIMELIMIT=1:00:00*"),
 * or, when the spec starts with '@', from the setres/mrsvctl text after it. NULL on error. */
static struct acl *build(const char *spec)
{
    struct acl *acl = acl_create();
    struct err err = {{0}};
    if (spec[0] == '@') {
        if (acl_parse_setres(acl, spec + 1, &err) < 0)
            goto fail;
        return acl;
    }
    char *copy = xstrdup(spec);
    for (char *save = NULL, *part = strtok_r(copy, ";", &save); part;
         part = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(part, '=');
        enum acl_type t;
        if (!eq)
            break;
        *eq = '\0';
        if (acl_attr_type(part, &t) < 0 || acl_add_list(acl, t, eq + 1, &err) < 0) {
            free(copy);
            goto fail;
        }
    }
    free(copy);
    return acl;
fail:
    fprintf(stderr, "    build(\"%s\"): %s\n", spec, err.msg);
    acl_destroy(acl);
    return NULL;
}

static const char *fmt(const struct acl *acl)
{
    static char buf[4096];
    acl_format(acl, buf, sizeof buf);
    return buf;
}

struct who {
    const char *user, *group, *account, *class_, *qos, *attr;
    long duration;
};

static struct acl_job job_of(const struct who *w, const char **attrs)
{
    attrs[0] = w->attr;
    struct acl_job j = {w->user, w->group,        w->account,  w->class_, w->qos,
                        attrs,   w->attr ? 1 : 0, w->duration, NULL,      0};
    return j;
}

/* ------------------------------------------------------- parsing a *LIST */

static const struct {
    enum acl_type type;
    const char *list;
    const char *want; /* acl_format after parsing */
} list_ok[] = {
    {ACL_USER, "bob,john*", "USER==bob+:==john+*"},
    {ACL_USER, "bob:john|mary", "USER==bob+:==john+:==mary+"},
    {ACL_USER, " bob , john ", "USER==bob+:==john+"},
    {ACL_USER, "bob\tjohn\n", "USER==bob+:==john+"},
    {ACL_USER, "!bob", "USER==!bob+"},
    {ACL_USER, "bob!", "USER==!bob+"},
    {ACL_USER, "john-", "USER==john-"},
    {ACL_USER, "john+", "USER==john+"},
    {ACL_USER, "john=", "USER==john="},
    {ACL_USER, "==bob", "USER==bob+"},
    {ACL_USER, "bob*-", "USER==bob-*"},
    {ACL_USER, "*bob=", "USER==bob=*"},
    {ACL_USER, "**bob*", "USER==bob+*"},
    {ACL_USER, "!bob-", "USER==!bob-"},
    {ACL_USER, "[ALL]", "USER==[ALL]+"},
    {ACL_USER, "bob,bob", "USER==bob+:==bob+"},
    {ACL_USER, "proj-x.1@host_2", "USER==proj-x.1@host_2+"},
    {ACL_USER, "john:mary", "USER==john+:==mary+"}, /* setres -u john:mary */
    {ACL_GROUP, "staff*", "GROUP==staff+*"},
    {ACL_GROUP, "*staff", "GROUP==staff+*"},
    {ACL_GROUP, "staff,ops,special", "GROUP==staff+:==ops+:==special+"},
    {ACL_ACCOUNT, "!projectX,!projectY", "ACCT==!projectX+:==!projectY+"},
    {ACL_ACCOUNT, "jupiter,saturn-", "ACCT==jupiter+:==saturn-"},
    {ACL_CLASS, "interactive", "CLASS==interactive+"},
    {ACL_QOS, "high low special-", "QOS==high+:==low+:==special-"},
    {ACL_QOS, "normal= high debug= low-", "QOS==normal=:==high+:==debug=:==low-"},
    {ACL_JOBATTR, "PREEMPTEE", "JATTR==PREEMPTEE+"},
    {ACL_DURATION, "1:00:00*", "DURATION<=1:00:00+*"},
    {ACL_DURATION, "*1:00:00", "DURATION<=1:00:00+*"},
    {ACL_DURATION, "<=1:00:00", "DURATION<=1:00:00+"},
    {ACL_DURATION, "90", "DURATION<=0:01:30+"},
    {ACL_DURATION, "1:30", "DURATION<=1:30:00+"}, /* HH:MM, as Maui reads two fields */
    {ACL_DURATION, "2:03:04:05-", "DURATION<=2:03:04:05-"},
    {ACL_DURATION, "1:00:00,2:00:00=", "DURATION<=1:00:00+:<=2:00:00="},
    {ACL_DURATION, "1:00:00|0", "DURATION<=1:00:00+:<=0:00:00+"},
    {ACL_DURATION, "INFINITY", "DURATION<=INFINITY+"},
    {ACL_DURATION, "99999:00:00:00", "DURATION<=INFINITY+"},
};

static void test_list_ok(void)
{
    for (size_t i = 0; i < sizeof list_ok / sizeof list_ok[0]; i++) {
        struct acl *acl = acl_create();
        struct err err = {{0}};
        int rc = acl_add_list(acl, list_ok[i].type, list_ok[i].list, &err);
        if (rc != 0)
            fprintf(stderr, "    row %zu \"%s\": %s\n", i, list_ok[i].list, err.msg);
        CHECK_EQ(rc, 0);
        CHECK_STR(fmt(acl), list_ok[i].want);
        acl_destroy(acl);
    }
}

static const struct {
    enum acl_type type;
    const char *list;
    const char *msg;  /* the message holds the attribute name and this */
    const char *word; /* ... and names the bad word */
} list_bad[] = {
    {ACL_USER, "", "empty list", ""},
    {ACL_USER, "  \t", "empty list", ""},
    {ACL_USER, "bob,,john", "empty item", "bob,,john"},
    {ACL_USER, ",bob", "empty item", ",bob"},
    {ACL_USER, "bob,", "empty item", "bob,"},
    {ACL_USER, "bob , ,john", "empty item", "bob , ,john"},
    {ACL_USER, "*", "empty name", "'*'"},
    {ACL_USER, "bob,!", "empty name", "'!'"},
    {ACL_USER, "==", "empty name", "'=='"},
    {ACL_USER, "bob^", "unsupported modifier", "bob^"},
    {ACL_USER, "&bob", "unsupported modifier", "&bob"},
    {ACL_USER, "bob+-", "more than one affinity mark", "bob+-"},
    {ACL_USER, "bob==", "more than one affinity mark", "bob=="},
    {ACL_USER, "!bob*", "'!' and '*' together", "!bob*"},
    {ACL_USER, "b=ob", "invalid character", "b=ob"},
    {ACL_USER, "b+ob", "invalid character", "b+ob"},
    {ACL_USER, "bo\001b", "invalid character", "bo\001b"},
    {ACL_USER, "b\xc3\xa9", "invalid character", "b\xc3\xa9"},
    {ACL_USER, "[bob]", "invalid character", "[bob]"},
    {ACL_USER, "<=bob", "a name only takes '=='", "<=bob"},
    {ACL_USER, "!=bob", "a name only takes '=='", "!=bob"},
    {ACL_USER, ">bob", "unsupported comparison", ">bob"},
    {ACL_GROUP, "staff,op^s", "invalid character", "op^s"},
    {ACL_ACCOUNT, "a,,b", "empty item", "a,,b"},
    {ACL_CLASS, "x]", "invalid character", "x]"},
    {ACL_QOS, "high low+=", "more than one affinity mark", "low+="},
    {ACL_JOBATTR, "PRE:", "empty item", "PRE:"},
    {ACL_DURATION, "abc", "invalid time", "abc"},
    {ACL_DURATION, "-1", "invalid time", "-1"},
    {ACL_DURATION, "1:00:00:00:00", "invalid time", "1:00:00:00:00"},
    {ACL_DURATION, "1:0x:00", "invalid time", "1:0x:00"},
    {ACL_DURATION, "*", "empty time", "'*'"},
    {ACL_DURATION, "==1:00:00", "a duration only takes '<='", "==1:00:00"},
    {ACL_DURATION, "1:00:00,,2", "empty item", "1:00:00,,2"},
};

static void test_list_bad(void)
{
    for (size_t i = 0; i < sizeof list_bad / sizeof list_bad[0]; i++) {
        struct acl *acl = acl_create();
        struct err err = {{0}};
        CHECK_EQ(acl_add_list(acl, ACL_USER, "keep", NULL), 0);
        CHECK_EQ(acl_add_list(acl, list_bad[i].type, list_bad[i].list, &err), -1);
        CHECK_HAS(err.msg, acl_attr_name(list_bad[i].type));
        CHECK_HAS(err.msg, list_bad[i].msg);
        CHECK_HAS(err.msg, list_bad[i].word);
        CHECK_EQ(acl_count(acl), 1); /* all or nothing */
        CHECK_STR(fmt(acl), "USER==keep+");
        acl_destroy(acl);
    }
    /* a NULL list and a NULL err are fine too */
    struct acl *acl = acl_create();
    CHECK_EQ(acl_add_list(acl, ACL_USER, NULL, NULL), -1);
    CHECK_EQ(acl_add_list(acl, ACL_USER, "a,b,c,d^", NULL), -1);
    CHECK_EQ(acl_count(acl), 0);
    acl_destroy(acl);
}

static void test_entries(void)
{
    struct acl *acl = acl_create();
    CHECK_EQ(acl_add_list(acl, ACL_GROUP, "staff*-,!ops", NULL), 0);
    CHECK_EQ(acl_add_list(acl, ACL_DURATION, "1:00:00=", NULL), 0);
    CHECK_EQ(acl_count(acl), 3);
    const struct acl_entry *e = acl_entry(acl, 0);
    CHECK(e->type == ACL_GROUP && e->required && !e->deny && e->affinity == ACL_NEGATIVE);
    CHECK_STR(e->name, "staff");
    e = acl_entry(acl, 1);
    CHECK(e->deny && !e->required && e->affinity == ACL_POSITIVE);
    CHECK_STR(e->name, "ops");
    e = acl_entry(acl, 2);
    CHECK(e->type == ACL_DURATION && e->name == NULL && e->secs == 3600);
    CHECK(e->affinity == ACL_NEUTRAL);
    acl_destroy(acl);
}

/* ------------------------------------------------- the setres/mrsvctl form */

static const struct {
    const char *text;
    const char *want; /* acl_format; NULL = error containing msg */
    const char *msg;
} setres_rows[] = {
    {"USER==john+:==mary-,GROUP==staff*", "USER==john+:==mary- GROUP==staff+*", NULL},
    /* mrsvctl -a examples */
    {"USER==john+,CLASS==batch-", "USER==john+ CLASS==batch-", NULL},
    {"USER==Joe:Bob", "USER==Joe+:==Bob+", NULL},
    {"DURATION<=*1:00:00", "DURATION<=1:00:00+*", NULL},
    {"USER==JOE&", NULL, "unsupported modifier"},
    {"USER==&Joe", NULL, "unsupported modifier"},
    {"USER-=john", NULL, "expected '=='"},
    {"GROUP+=MyGroup", NULL, "expected '=='"},
    /* the ACL line of diagnose -r, read back as printed */
    {"CLASS==batch+:==long+:==fast+:==bigmem+ QOS==low-:==high+ JATTR==PREEMPTEE+",
     "CLASS==batch+:==long+:==fast+:==bigmem+ QOS==low-:==high+ JATTR==PREEMPTEE+", NULL},
    {"QOS==high DURATION<=1:00:00*  USER==bob", "USER==bob+ QOS==high+ DURATION<=1:00:00+*", NULL},
    {"acct==x , qos==y", "ACCT==x+ QOS==y+", NULL},
    {"ACCOUNT==x,JOBATTR==PREEMPTEE", "ACCT==x+ JATTR==PREEMPTEE+", NULL},
    {"USER==!bob:carl", "USER==!bob+:==carl+", NULL},
    {"DURATION<=1:00:00:<=2:00:00-", "DURATION<=1:00:00+:<=2:00:00-", NULL},
    {"DURATION<=1:00:00=:==30", NULL, "a duration only takes '<='"},
    {"DURATION<=2:00:00:00*", "DURATION<=2:00:00:00+*", NULL},
    {"USER==a,USER==b", "USER==a+:==b+", NULL},
    {"", NULL, "empty list"},
    {"   ", NULL, "empty list"},
    {"USER==a,,GROUP==b", NULL, "empty item"},
    {"USER==a,", NULL, "empty item"},
    {"USER==", NULL, "empty name"},
    {"USER==a::b", NULL, "empty name"},
    {"USER==a:", NULL, "empty name"},
    {"USER", NULL, "expected '=='"},
    {"USERbob", NULL, "unknown type"},
    {"RSV==x", NULL, "unknown type"},
    {"==bob", NULL, "unknown type"},
    {"USER<=bob", NULL, "a name only takes '=='"},
    {"DURATION==1:00:00", NULL, "ACL DURATION: a duration only takes '<='"},
    {"DURATION<=soon", NULL, "invalid time"},
    {"USER==ok,GROUP==bd^", NULL, "ACL GROUP: unsupported modifier in '==bd^'"},
};

static void test_setres(void)
{
    for (size_t i = 0; i < sizeof setres_rows / sizeof setres_rows[0]; i++) {
        struct acl *acl = acl_create();
        struct err err = {{0}};
        int rc = acl_parse_setres(acl, setres_rows[i].text, &err);
        if (setres_rows[i].want) {
            if (rc != 0)
                fprintf(stderr, "    row %zu \"%s\": %s\n", i, setres_rows[i].text, err.msg);
            CHECK_EQ(rc, 0);
            CHECK_STR(fmt(acl), setres_rows[i].want);
        } else {
            CHECK_EQ(rc, -1);
            CHECK_HAS(err.msg, setres_rows[i].msg);
            CHECK_EQ(acl_count(acl), 0); /* all or nothing */
        }
        acl_destroy(acl);
    }
    struct acl *acl = acl_create();
    CHECK_EQ(acl_parse_setres(acl, NULL, NULL), -1);
    acl_destroy(acl);
}

/* Every form acl_format prints reads back to the same ACL. */
static void test_round_trip(void)
{
    for (size_t i = 0; i < sizeof list_ok / sizeof list_ok[0]; i++) {
        struct acl *a = acl_create(), *b = acl_create();
        CHECK_EQ(acl_add_list(a, list_ok[i].type, list_ok[i].list, NULL), 0);
        CHECK_EQ(acl_add_list(a, ACL_QOS, "hi-", NULL), 0);
        char text[512];
        acl_format(a, text, sizeof text);
        CHECK_EQ(acl_parse_setres(b, text, NULL), 0);
        CHECK_STR(fmt(b), text);
        CHECK_EQ(acl_count(b), acl_count(a));
        acl_destroy(a);
        acl_destroy(b);
    }
}

static void test_format(void)
{
    struct acl *acl = acl_create();
    char buf[8];
    CHECK_EQ(acl_format(acl, buf, sizeof buf), 0);
    CHECK_STR(buf, "");
    CHECK_EQ(acl_format(NULL, NULL, 0), 0);
    /* grouped by type whatever the order added */
    CHECK_EQ(acl_add_list(acl, ACL_QOS, "high", NULL), 0);
    CHECK_EQ(acl_add_list(acl, ACL_USER, "bob", NULL), 0);
    CHECK_EQ(acl_add_list(acl, ACL_QOS, "low-", NULL), 0);
    CHECK_STR(fmt(acl), "USER==bob+ QOS==high+:==low-");
    int need = (int)strlen("USER==bob+ QOS==high+:==low-");
    CHECK_EQ(acl_format(acl, NULL, 0), need);
    CHECK_EQ(acl_format(acl, buf, sizeof buf), need); /* truncated, like snprintf */
    CHECK_STR(buf, "USER==b");
    CHECK_EQ(acl_format(acl, buf, 1), need);
    CHECK_STR(buf, "");
    acl_destroy(acl);
}

/* ------------------------------------------------------------- evaluation */

#define P ACL_POSITIVE
#define Z ACL_NEUTRAL
#define N ACL_NEGATIVE
#define NO ACL_NONE

static const struct {
    const char *acl; /* see build() */
    struct who who;  /* user, group, account, class, qos, attr, duration */
    enum acl_affinity want;
} eval_rows[] = {
    /* 7.1.5.3: "A default reservation, with no ACL, is termed a SYSTEM reservation. It blocks
     * access to all jobs" */
    {"", {"bob", "staff", "a", "batch", "high", "PREEMPTEE", 0}, NO},
    {"USERLIST=bob", {"bob", 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=bob", {"alice", 0, 0, 0, 0, 0, 0}, NO},
    {"USERLIST=bob", {0, 0, 0, 0, 0, 0, 0}, NO}, /* a job without the credential */
    {"USERLIST=bob,alice", {"alice", 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=Bob", {"bob", 0, 0, 0, 0, 0, 0}, NO}, /* names are case-sensitive */
    {"GROUPLIST=[ALL]", {"u", "anything", 0, 0, 0, 0, 0}, P},
    {"GROUPLIST=[ALL]", {"u", 0, 0, 0, 0, 0, 0}, NO},
    /* ordinary lists are OR-ed across types */
    {"USERLIST=bob;GROUPLIST=staff;QOSLIST=hi", {"x", "x", "x", "x", "hi", 0, 0}, P},
    {"USERLIST=bob;GROUPLIST=staff;QOSLIST=hi", {"x", "staff", 0, 0, 0, 0, 0}, P},
    {"USERLIST=bob;GROUPLIST=staff;QOSLIST=hi", {"x", "x", "x", "x", "x", 0, 0}, NO},
    {"ACCOUNTLIST=a;CLASSLIST=c", {0, 0, 0, "c", 0, 0, 0}, P},
    /* required lists are AND-ed with everything else */
    {"USERLIST=bob;GROUPLIST=staff*", {"bob", "staff", 0, 0, 0, 0, 0}, P},
    {"USERLIST=bob;GROUPLIST=staff*", {"bob", "ops", 0, 0, 0, 0, 0}, NO},
    {"USERLIST=bob;GROUPLIST=staff*", {"alice", "staff", 0, 0, 0, 0, 0}, NO},
    {"GROUPLIST=staff*", {"alice", "staff", 0, 0, 0, 0, 0}, P}, /* no ordinary entries */
    {"GROUPLIST=staff*", {"alice", "ops", 0, 0, 0, 0, 0}, NO},
    {"GROUPLIST=staff*;CLASSLIST=batch*", {0, "staff", 0, "batch", 0, 0, 0}, P},
    {"GROUPLIST=staff*;CLASSLIST=batch*", {0, "staff", 0, "fast", 0, 0, 0}, NO},
    /* a required list is met by any one of its entries (moku's reading, see acl.c) */
    {"GROUPLIST=staff*,ops*", {0, "ops", 0, 0, 0, 0, 0}, P},
    {"GROUPLIST=staff*,ops*", {0, "x", 0, 0, 0, 0, 0}, NO},
    /* NOT: a matching job is refused whatever else it matches */
    {"USERLIST=!bob", {"bob", 0, 0, 0, 0, 0, 0}, NO},
    {"USERLIST=!bob", {"alice", 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=!bob", {0, 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=!bob;GROUPLIST=staff", {"bob", "staff", 0, 0, 0, 0, 0}, NO},
    {"USERLIST=!bob;GROUPLIST=staff", {"alice", "staff", 0, 0, 0, 0, 0}, P},
    /* the document: a NOT-only list is "satisfied by any object not explicitly
     * listed", so alice meets USERLIST=!bob whatever her group (Maui 3.3.1's
     * code refused her; docs/reservations.md) */
    {"USERLIST=!bob;GROUPLIST=staff", {"alice", "ops", 0, 0, 0, 0, 0}, P},
    {"USERLIST=!bob,alice", {"alice", "ops", 0, 0, 0, 0, 0}, P},
    {"USERLIST=!bob;GROUPLIST=staff*", {"bob", "staff", 0, 0, 0, 0, 0}, NO},
    {"USERLIST=!bob,alice", {"carl", 0, 0, 0, 0, 0, 0}, NO},
    /* affinity: per entry, positive by default */
    {"USERLIST=john-", {"john", 0, 0, 0, 0, 0, 0}, N},
    {"USERLIST=john=", {"john", 0, 0, 0, 0, 0, 0}, Z},
    {"USERLIST=john+", {"john", 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=john-", {"carl", 0, 0, 0, 0, 0, 0}, NO},
    /* several ordinary matches: the best wins */
    {"USERLIST=john-;GROUPLIST=staff=", {"john", "staff", 0, 0, 0, 0, 0}, Z},
    {"USERLIST=john-;GROUPLIST=staff", {"john", "staff", 0, 0, 0, 0, 0}, P},
    {"USERLIST=john-;GROUPLIST=staff", {"john", "ops", 0, 0, 0, 0, 0}, N},
    /* a matching required entry lowers it */
    {"USERLIST=john;GROUPLIST=staff*-", {"john", "staff", 0, 0, 0, 0, 0}, N},
    {"USERLIST=john-;GROUPLIST=staff*=", {"john", "staff", 0, 0, 0, 0, 0}, N},
    {"GROUPLIST=staff*=", {0, "staff", 0, 0, 0, 0, 0}, Z},
    {"GROUPLIST=staff*=,ops*-", {0, "ops", 0, 0, 0, 0, 0}, N},
    /* job attributes */
    /* a node feature named PREEMPTEE is not the job flag (issue 26) */
    {"JOBATTRLIST=PREEMPTEE", {0, 0, 0, 0, 0, "PREEMPTEE", 0}, NO},
    {"JOBATTRLIST=PREEMPTEE", {0, 0, 0, 0, 0, "OTHER", 0}, NO},
    {"JOBATTRLIST=PREEMPTEE", {0, 0, 0, 0, 0, 0, 0}, NO},
    /* TIMELIMIT: duration (overlap) <= limit; a plain entry like any other */
    {"TIMELIMIT=1:00:00", {"x", 0, 0, 0, 0, 0, 3600}, P},
    {"TIMELIMIT=1:00:00", {"x", 0, 0, 0, 0, 0, 3601}, NO},
    {"TIMELIMIT=1:00:00", {"x", 0, 0, 0, 0, 0, 0}, P},
    {"TIMELIMIT=INFINITY", {"x", 0, 0, 0, 0, 0, 400000000}, P},
    {"TIMELIMIT=1:00:00;USERLIST=bob", {"bob", 0, 0, 0, 0, 0, 7200}, P},
    {"TIMELIMIT=1:00:00;USERLIST=bob", {"alice", 0, 0, 0, 0, 0, 1800}, P},
    {"TIMELIMIT=1:00:00;USERLIST=bob", {"alice", 0, 0, 0, 0, 0, 7200}, NO},
    {"TIMELIMIT=1:00:00*;USERLIST=bob", {"bob", 0, 0, 0, 0, 0, 7200}, NO},
    {"TIMELIMIT=1:00:00*;USERLIST=bob", {"bob", 0, 0, 0, 0, 0, 1800}, P},
    {"TIMELIMIT=1:00:00*;USERLIST=bob", {"alice", 0, 0, 0, 0, 0, 1800}, NO},
    {"TIMELIMIT=1:00:00*", {"alice", 0, 0, 0, 0, 0, 1800}, P},
    {"TIMELIMIT=1:00:00*,2:00:00*", {"alice", 0, 0, 0, 0, 0, 5400}, P},
    {"TIMELIMIT=1:00:00-", {"alice", 0, 0, 0, 0, 0, 60}, N},

    /* Admin Guide 7.1.5, Example 1: CLASSLIST=interactive */
    {"CLASSLIST=interactive", {"u", "g", "a", "interactive", "q", 0, 99999}, P},
    {"CLASSLIST=interactive", {"u", "g", "a", "batch", "q", 0, 60}, NO},
    /* SRCFG table, GROUPLIST: "jobs with the listed group ID's or which request the job
     * class interactive" */
    {"GROUPLIST=staff,ops,special;CLASSLIST=interactive", {"u", "ops", 0, "batch", 0, 0, 0}, P},
    {"GROUPLIST=staff,ops,special;CLASSLIST=interactive", {"u", "x", 0, "interactive", 0, 0, 0}, P},
    {"GROUPLIST=staff,ops,special;CLASSLIST=interactive", {"u", "x", 0, "batch", 0, 0, 0}, NO},
    /* SRCFG table, JOBATTRLIST: "Preemptible jobs can access the resources": by the job's
     * flag (test_attrs); a feature of that name is not it */
    {"JOBATTRLIST=PREEMPTEE", {"u", "g", "a", "c", "q", "PREEMPTEE", 60}, NO},
    /* Example 3, reservation debug: "jobs submitted by either user helpdesk or any member of
     * the groups operations or sysadmin can use the reserved resources" */
    {"USERLIST=helpdesk;GROUPLIST=operations,sysadmin", {"helpdesk", "users", 0, 0, 0, 0, 0}, P},
    {"USERLIST=helpdesk;GROUPLIST=operations,sysadmin", {"joe", "sysadmin", 0, 0, 0, 0, 0}, P},
    {"USERLIST=helpdesk;GROUPLIST=operations,sysadmin", {"joe", "users", 0, 0, 0, 0, 0}, NO},
/* Example 4, reservation special (the guide's ACCCOUNTLIST is a typo for ACCOUNTLIST):
 * TIMELIMIT required, QOS high/low positive, special negative, accounts projectX and
 * projectY excluded. */
#define EX4 "TIMELIMIT=1:00:00*;QOSLIST=high low special-;ACCOUNTLIST=!projectX,!projectY"
    /* "jobs requiring an hour or less of wallclock time meet this constraint" */
    {EX4, {"u", "g", "ops", "c", "high", 0, 3600}, P},
    {EX4, {"u", "g", "ops", "c", "low", 0, 60}, P},
    /* "a four hour job that starts on Monday at 5:00 AM" overlaps one hour: the caller
     * passes the overlap */
    {EX4, {"u", "g", "ops", "c", "high", 0, 3600}, P},
    {EX4, {"u", "g", "ops", "c", "high", 0, 4 * 3600}, NO},
    /* "QOS special granted access with negative affinity" */
    {EX4, {"u", "g", "ops", "c", "special", 0, 1800}, N},
    /* "a QOS 3 job requesting account projectX will be denied access to the reservation
     * even though the job QOS matches the QOS ACL" */
    {EX4, {"u", "g", "projectX", "c", "high", 0, 1800}, NO},
    {EX4, {"u", "g", "projectY", "c", "special", 0, 1800}, NO},
    /* The guide also lets in a job whose account merely avoids projectX/projectY with a QOS
     * outside the list: ACCOUNTLIST=!projectX is "satisfied by any account not listed".
     * moku follows the document (Maui 3.3.1's code refused it: issue 13 §3). */
    {EX4, {"u", "g", "ops", "c", "normal", 0, 1800}, P},
    {EX4, {"u", "g", "projectZ", "c", "normal", 0, 1800}, P},
    {EX4, {"u", "g", "projectZ", "c", "normal", 0, 2 * 3600}, NO}, /* TIMELIMIT still required */
    /* "Affinity ... neutral affinity can also be specified using the '=' character, i.e.,
     * QOSLIST[0] normal= high debug= low-" */
    {"QOSLIST=normal= high debug= low-", {0, 0, 0, 0, "normal", 0, 0}, Z},
    {"QOSLIST=normal= high debug= low-", {0, 0, 0, 0, "high", 0, 0}, P},
    {"QOSLIST=normal= high debug= low-", {0, 0, 0, 0, "debug", 0, 0}, Z},
    {"QOSLIST=normal= high debug= low-", {0, 0, 0, 0, "low", 0, 0}, N},
    /* Example 5, limited shared access: ACCOUNTLIST=jupiter,saturn- */
    {"ACCOUNTLIST=jupiter,saturn-", {0, 0, "jupiter", 0, 0, 0, 0}, P},
    {"ACCOUNTLIST=jupiter,saturn-", {0, 0, "saturn", 0, 0, 0, 0}, N},
    {"ACCOUNTLIST=jupiter,saturn-", {0, 0, "mars", 0, 0, 0, 0}, NO},
    /* setres Example 1: setres -u john:mary */
    {"USERLIST=john:mary", {"mary", 0, 0, 0, 0, 0, 0}, P},
    {"USERLIST=john:mary", {"bob", 0, 0, 0, 0, 0, 0}, NO},
    /* mrsvctl -a USER==john+,CLASS==batch-: "allowing access to user john and restricting
     * access from class batch when other resources are available" */
    {"@USER==john+,CLASS==batch-", {"john", 0, 0, "fast", 0, 0, 0}, P},
    {"@USER==john+,CLASS==batch-", {"ann", 0, 0, "batch", 0, 0, 0}, N},
    {"@USER==john+,CLASS==batch-", {"ann", 0, 0, "fast", 0, 0, 0}, NO},
    /* mrsvctl: 'DURATION<=*1:00:00' "to not accept any jobs with a walltime greater than one
     * hour" */
    {"@USER==Joe:Bob,DURATION<=*1:00:00", {"Bob", 0, 0, 0, 0, 0, 3600}, P},
    {"@USER==Joe:Bob,DURATION<=*1:00:00", {"Bob", 0, 0, 0, 0, 0, 3601}, NO},
};

static void test_eval(void)
{
    for (size_t i = 0; i < sizeof eval_rows / sizeof eval_rows[0]; i++) {
        struct acl *acl = build(eval_rows[i].acl);
        CHECK(acl != NULL);
        if (!acl)
            continue;
        const char *attrs[1];
        struct acl_job j = job_of(&eval_rows[i].who, attrs);
        enum acl_affinity got = acl_check(acl, &j);
        if (got != eval_rows[i].want)
            fprintf(stderr, "    row %zu \"%s\" user %s: got %s, want %s\n", i, eval_rows[i].acl,
                    eval_rows[i].who.user ? eval_rows[i].who.user : "-", acl_affinity_name(got),
                    acl_affinity_name(eval_rows[i].want));
        CHECK_EQ(got, eval_rows[i].want);
        acl_destroy(acl);
    }
    struct acl_job j = {"bob", 0, 0, 0, 0, NULL, 0, 0, NULL, 0};
    CHECK_EQ(acl_check(NULL, &j), ACL_NONE);
}

/* A job with several attributes matches an entry naming any of them. */
static void test_attrs(void)
{
    struct acl *acl = build("JOBATTRLIST=B*");
    const char *attrs[] = {"A", "B", "C"};
    struct acl_job j = {0, 0, 0, 0, 0, attrs, 3, 0, NULL, 0};
    CHECK_EQ(acl_check(acl, &j), ACL_POSITIVE);
    j.nattrs = 1;
    CHECK_EQ(acl_check(acl, &j), ACL_NONE);
    acl_destroy(acl);
    /* JOBATTRLIST=PREEMPTEE matches the job's flag, in any case, not a
     * feature of that name only */
    static const char *const flags[] = {"PREEMPTEE"};
    acl = build("JOBATTRLIST=preemptee");
    struct acl_job k = {"bob", 0, 0, 0, 0, NULL, 0, 0, flags, 1};
    CHECK_EQ(acl_check(acl, &k), ACL_POSITIVE);
    k.nflags = 0;
    CHECK_EQ(acl_check(acl, &k), ACL_NONE);
    /* a job asking for a node feature PREEMPTEE is not a preemptee */
    static const char *const feat[] = {"PREEMPTEE"};
    struct acl_job f = {"bob", 0, 0, 0, 0, feat, 1, 0, NULL, 0};
    CHECK_EQ(acl_check(acl, &f), ACL_NONE);
    acl_destroy(acl);
}

/* ---------------------------------------------------------------- stacking */

static const struct {
    const char *a, *b; /* two reservations on the same resources */
    struct who who;
    enum acl_affinity want;
} stack_rows[] = {
    /* Example 3: interactive and debug both hold node001: "The job could only use the doubly
     * reserved resources if it requested the run class interactive AND it met the
     * constraints of reservation debug" */
    {"CLASSLIST=interactive",
     "USERLIST=helpdesk;GROUPLIST=operations,sysadmin",
     {"helpdesk", "users", 0, "interactive", 0, 0, 0},
     P},
    {"CLASSLIST=interactive",
     "USERLIST=helpdesk;GROUPLIST=operations,sysadmin",
     {"joe", "sysadmin", 0, "interactive", 0, 0, 0},
     P},
    {"CLASSLIST=interactive",
     "USERLIST=helpdesk;GROUPLIST=operations,sysadmin",
     {"joe", "users", 0, "interactive", 0, 0, 0},
     NO},
    {"CLASSLIST=interactive",
     "USERLIST=helpdesk;GROUPLIST=operations,sysadmin",
     {"helpdesk", "users", 0, "batch", 0, 0, 0},
     NO},
    /* the least favourable affinity wins */
    {"USERLIST=bob", "USERLIST=bob-", {"bob", 0, 0, 0, 0, 0, 0}, N},
    {"USERLIST=bob=", "USERLIST=bob", {"bob", 0, 0, 0, 0, 0, 0}, Z},
    {"USERLIST=bob=", "USERLIST=bob-", {"bob", 0, 0, 0, 0, 0, 0}, N},
    {"USERLIST=bob", "GROUPLIST=g", {"bob", "g", 0, 0, 0, 0, 0}, P},
    /* a SYSTEM reservation in the stack blocks everyone */
    {"USERLIST=bob", "", {"bob", 0, 0, 0, 0, 0, 0}, NO},
};

static void test_stacking(void)
{
    for (size_t i = 0; i < sizeof stack_rows / sizeof stack_rows[0]; i++) {
        struct acl *a = build(stack_rows[i].a), *b = build(stack_rows[i].b);
        const struct acl *both[] = {a, b}, *rev[] = {b, a};
        const char *attrs[1];
        struct acl_job j = job_of(&stack_rows[i].who, attrs);
        CHECK_EQ(acl_check_all(both, 2, &j), stack_rows[i].want);
        CHECK_EQ(acl_check_all(rev, 2, &j), stack_rows[i].want);
        CHECK_EQ(acl_check_all(both, 1, &j), acl_check(a, &j));
        acl_destroy(a);
        acl_destroy(b);
    }
    struct acl_job j = {"bob", 0, 0, 0, 0, NULL, 0, 0, NULL, 0};
    CHECK_EQ(acl_check_all(NULL, 0, &j), ACL_NEUTRAL);
}

/* ------------------------------------------------------------------ misc */

static void test_names_and_dup(void)
{
    enum acl_type t;
    CHECK_EQ(acl_attr_type("USERLIST", &t), 0);
    CHECK_EQ(t, ACL_USER);
    CHECK_EQ(acl_attr_type("accountlist", &t), 0);
    CHECK_EQ(t, ACL_ACCOUNT);
    CHECK_EQ(acl_attr_type("JOBATTRLIST", &t), 0);
    CHECK_EQ(t, ACL_JOBATTR);
    CHECK_EQ(acl_attr_type("TIMELIMIT", &t), 0);
    CHECK_EQ(t, ACL_DURATION);
    CHECK_EQ(acl_attr_type("HOSTLIST", &t), -1);
    CHECK_EQ(acl_attr_type(NULL, &t), -1);
    for (int i = 0; i < ACL_NTYPES; i++) {
        CHECK_EQ(acl_attr_type(acl_attr_name((enum acl_type)i), &t), 0);
        CHECK_EQ(t, i);
    }
    CHECK_STR(acl_type_name(ACL_ACCOUNT), "ACCT");
    CHECK_STR(acl_type_name(ACL_JOBATTR), "JATTR");
    CHECK_STR(acl_affinity_name(ACL_NEGATIVE), "negative");
    CHECK_STR(acl_affinity_name(ACL_NONE), "none");

    acl_destroy(NULL);
    struct acl *a = build("USERLIST=bob-;TIMELIMIT=1:00:00*");
    struct acl *c = acl_dup(a);
    acl_destroy(a); /* the copy owns its own names */
    CHECK_STR(fmt(c), "USER==bob- DURATION<=1:00:00+*");
    struct acl_job j = {"bob", 0, 0, 0, 0, NULL, 0, 60, NULL, 0};
    CHECK_EQ(acl_check(c, &j), ACL_NEGATIVE);
    acl_destroy(c);
    c = acl_dup(NULL);
    CHECK_EQ(acl_count(c), 0);
    acl_destroy(c);
}

/* -------------------------------------------------------------- hostile input */

static void test_long_lists(void)
{
    enum { N_USERS = 100000 };
    size_t cap = (size_t)N_USERS * 12 + 1, pos = 0;
    char *list = malloc(cap);
    for (int i = 0; i < N_USERS; i++)
        pos += (size_t)snprintf(list + pos, cap - pos, "%su%d%s", i ? "," : "", i,
                                i % 3 == 0 ? "-" : "");
    struct acl *acl = acl_create();
    CHECK_EQ(acl_add_list(acl, ACL_USER, list, NULL), 0);
    CHECK_EQ(acl_count(acl), N_USERS);
    struct acl_job j = {"u99999", 0, 0, 0, 0, NULL, 0, 0, NULL, 0};
    CHECK_EQ(acl_check(acl, &j), ACL_NEGATIVE);
    j.user = "u99998";
    CHECK_EQ(acl_check(acl, &j), ACL_POSITIVE);
    int need = acl_format(acl, NULL, 0);
    char *text = malloc((size_t)need + 1);
    CHECK_EQ(acl_format(acl, text, (size_t)need + 1), need);
    CHECK_EQ((int)strlen(text), need);
    struct acl *back = acl_create();
    CHECK_EQ(acl_parse_setres(back, text, NULL), 0);
    CHECK_EQ(acl_count(back), N_USERS);
    free(text);
    acl_destroy(back);

    /* a bad item at the very end leaves nothing behind */
    strcpy(list + pos, ",x^");
    struct err err = {{0}};
    CHECK_EQ(acl_add_list(acl, ACL_GROUP, list, &err), -1);
    CHECK_EQ(acl_count(acl), N_USERS);
    CHECK_HAS(err.msg, "GROUPLIST: unsupported modifier in 'x^'");
    acl_destroy(acl);

    /* one very long name; the message quotes a bounded piece of it */
    memset(list, 'n', cap - 1);
    list[cap - 1] = '\0';
    acl = acl_create();
    CHECK_EQ(acl_add_list(acl, ACL_CLASS, list, NULL), 0);
    CHECK_EQ(strlen(acl_entry(acl, 0)->name), cap - 1);
    list[cap / 2] = '^';
    CHECK_EQ(acl_add_list(acl, ACL_CLASS, list, &err), -1);
    CHECK(strlen(err.msg) < 200);
    CHECK_HAS(err.msg, "...");
    acl_destroy(acl);
    free(list);
}

/* Random texts over the characters that mean something: never a crash, and whatever is
 * accepted prints to a text that reads back to the same ACL. */
static void test_fuzz(void)
{
    static const char alphabet[] = "aaabbb0011::,,| *!+-=^&<[]ALL\t\001\xff";
    unsigned seed = 12345;
    int accepted = 0;
    for (int round = 0; round < 20000; round++) {
        static const char *const heads[] = {"", "USER==", "qos==", "DURATION<=", "JATTR=="};
        char text[64];
        size_t h = round % 2 ? strlen(strcpy(text, heads[(seed >> 8) % 5])) : 0;
        size_t n = h + (size_t)(seed % 12);
        for (size_t i = h; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            text[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        text[n] = '\0';
        seed = seed * 1103515245u + 12345u;
        struct acl *acl = acl_create();
        struct err err = {{0}};
        int rc = round % 2 ? acl_parse_setres(acl, text, &err)
                           : acl_add_list(acl, (enum acl_type)(seed % ACL_NTYPES), text, &err);
        if (rc == 0) {
            accepted++;
            char out[1024];
            acl_format(acl, out, sizeof out);
            struct acl *back = acl_create();
            CHECK_EQ(acl_parse_setres(back, out, NULL), 0);
            CHECK_STR(fmt(back), out);
            acl_destroy(back);
            struct acl_job j = {"a", "b", "0", "1", "ALL", NULL, 0, 5, NULL, 0};
            (void)acl_check(acl, &j);
        } else {
            CHECK(err.msg[0] != '\0');
            CHECK_EQ(acl_count(acl), 0);
        }
        acl_destroy(acl);
    }
    CHECK(accepted > 500); /* the property was exercised */
}

int main(void)
{
    TEST_RUN(test_list_ok);
    TEST_RUN(test_list_bad);
    TEST_RUN(test_entries);
    TEST_RUN(test_setres);
    TEST_RUN(test_round_trip);
    TEST_RUN(test_format);
    TEST_RUN(test_eval);
    TEST_RUN(test_attrs);
    TEST_RUN(test_stacking);
    TEST_RUN(test_names_and_dup);
    TEST_RUN(test_long_lists);
    TEST_RUN(test_fuzz);
    return TEST_DONE();
}
