/*
 * t_cmdtab — the command table (cmd/cmdtab.h) and every reader of it: a
 * command must not exist in one place and not another. Each entry is asked
 * of the help (--help, man pages, completion), the client (which names it
 * sends to the daemon), the simulator's command layer (cmd_known), the
 * daemon's dispatch (dreq_answers) and the web API's two lists.
 */
#include "test.h"

#include "cli/client.h"
#include "cli/help.h"
#include "cmd/cmd.h"
#include "cmd/cmdtab.h"
#include "daemon/daemon_int.h"
#include "daemon/dreq.h"
#include "web/web.h"

static size_t count(void)
{
    size_t n = 0;
    while (cmd_def_at(n))
        n++;
    return n;
}

/* Names are unique, an alias names a command of its own, and a request
 * name leads back to the entry (or its command). */
static void test_names(void)
{
    size_t n = count();
    CHECK(n > 30);
    for (size_t i = 0; i < n; i++) {
        const struct cmd_def *d = cmd_def_at(i);
        for (size_t k = i + 1; k < n; k++)
            CHECK(strcmp(d->doc.name, cmd_def_at(k)->doc.name) != 0);
        CHECK(cmd_def_find(d->doc.name) == d);
        if (d->same_as) {
            const struct cmd_def *m = cmd_def_find(d->same_as);
            CHECK(m && !m->same_as);
            CHECK(cmd_def_main(d) == m);
            CHECK_EQ(d->run == NULL && d->op == CMD_OP_NONE && d->flags == 0, 1);
        }
        CHECK(cmd_def_request(cmd_def_request_name(d)) == cmd_def_main(d));
    }
    CHECK(cmd_def_find("frobnicate") == NULL);
    CHECK(cmd_def_request("frobnicate") == NULL);
}

/* Every command has its help, the very entry: --help, the man pages and
 * completion walk help_at. */
static void test_help(void)
{
    for (size_t i = 0; cmd_def_at(i); i++) {
        const struct cmd_def *d = cmd_def_at(i);
        test_name = d->doc.name;
        CHECK(help_find(d->doc.name) == &d->doc);
        CHECK(d->doc.summary && *d->doc.summary && d->doc.synopsis && d->doc.desc);
        int found = 0;
        for (size_t k = 0; help_at(k); k++)
            found |= help_at(k) == &d->doc;
        CHECK(found);
    }
    test_name = "test_help";
}

/* The client sends a request for its HELP_CLIENT commands under their
 * names: the daemon answers each, and every name the daemon answers is a
 * command the client sends (or a request of its own: submit, weblogin). */
static void test_daemon(void)
{
    int used[CMD_OP_COUNT] = {0};
    for (size_t i = 0; cmd_def_at(i); i++) {
        const struct cmd_def *d = cmd_def_at(i), *m = cmd_def_main(d);
        const char *req = cmd_def_request_name(d);
        test_name = d->doc.name;
        used[m->op] = 1;
        CHECK_EQ(client_is_command(d->doc.name), (d->doc.flags & HELP_CLIENT) != 0);
        if (d->doc.flags & HELP_CLIENT) {
            CHECK(d->request == NULL);
            CHECK(dreq_answers(d->doc.name));
        }
        CHECK_EQ(dreq_answers(req), m->op != CMD_OP_NONE);
        if (m->op != CMD_OP_NONE && !d->request)
            CHECK(d->doc.flags & HELP_CLIENT);
        if (d->request) /* qsub, msub, moku submit, moku web: never by name */
            CHECK(!dreq_answers(d->doc.name));
        CHECK_EQ(dtorque_answers(m->op), (m->flags & CMD_TORQUE) != 0);
    }
    test_name = "test_daemon";
    for (int op = CMD_OP_LOOK; op < CMD_OP_COUNT; op++)
        CHECK(used[op]); /* no handler without its command */
    CHECK(!dreq_answers("frobnicate"));
    CHECK(!dreq_answers(""));
}

/* The simulator runs exactly the commands with a command-layer handler. */
static void test_simulator(void)
{
    for (size_t i = 0; cmd_def_at(i); i++) {
        const struct cmd_def *d = cmd_def_at(i);
        test_name = d->doc.name;
        CHECK_EQ(cmd_known(d->doc.name), cmd_def_main(d)->run != NULL);
    }
    test_name = "test_simulator";
    char names[256];
    cmd_def_look_names(names, sizeof names);
    CHECK(strncmp(names, "showq, checkjob, checknode, showstats,", 38) == 0);
    CHECK(strstr(names, " or pbsnodes") != NULL);
    CHECK(strstr(names, "setres") == NULL && strstr(names, "mdiag") == NULL);
}

/* The web API: GET for what only looks, POST /api/run for those and what
 * changes state; never an alias, never one the table does not offer. */
static void test_web(void)
{
    int reads = 0, runs = 0;
    for (size_t i = 0; cmd_def_at(i); i++) {
        const struct cmd_def *d = cmd_def_at(i);
        int web = !d->same_as && (d->flags & CMD_WEB);
        test_name = d->doc.name;
        CHECK_EQ(web_api_runs(d->doc.name), web);
        CHECK_EQ(web_api_reads(d->doc.name), web && !(d->flags & CMD_CHANGES));
        if (web) /* what the web offers, the daemon answers under that name */
            CHECK(dreq_answers(d->doc.name));
        reads += web_api_reads(d->doc.name);
        runs += web_api_runs(d->doc.name);
    }
    test_name = "test_web";
    CHECK_EQ(reads, 9);
    CHECK_EQ(runs, 20);
    CHECK(!web_api_runs("submit") && !web_api_runs("mdiag") && !web_api_runs("resetstats"));
    CHECK(web_api_runs("setres") && !web_api_reads("setres"));
}

int main(void)
{
    TEST_RUN(test_names);
    TEST_RUN(test_help);
    TEST_RUN(test_daemon);
    TEST_RUN(test_simulator);
    TEST_RUN(test_web);
    return TEST_DONE();
}
