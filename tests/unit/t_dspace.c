/* t_dspace — the daemon's count of live jobs and each user's bytes
 * (src/daemon/dspace.c) kept across a group of submissions: many users who
 * never had a job, submitting in one group, are each counted, and the
 * count's table grows for them (it used to take a slot per new user without
 * counting it, until the table was full and the next new user's look-up
 * never ended: the daemon hung). */
#include <unistd.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "store/store.h"
#include "test.h"

static void test_many_new_users_in_one_group(void)
{
    char dir[] = "/tmp/t_dspace.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/moku.db", dir);
    struct err e = {""};
    struct dmn d = {0};
    d.cfg = cfg_create();
    d.st = store_open(path, &e);
    CHECK(d.st != NULL);
    CHECK_EQ(store_group_open(d.st, &e), 0);
    alarm(20); /* the old table never returned: fail, not hang */
    enum { USERS = 1000 };
    for (long uid = 1; uid <= USERS; uid++) {
        CHECK_EQ(dspace_submit_ok(&d, (uid_t)uid, 10, 1, 1, &e), 0);
        dspace_submitted(&d, (uid_t)uid, 10);
    }
    alarm(0);
    CHECK_EQ(d.space.tally.live, USERS);
    CHECK_EQ(d.space.tally.uids, USERS);
    CHECK(d.space.tally.cap > 2 * USERS);
    struct err e2 = {""};
    CHECK_EQ(store_group_close(d.st, &e2), 0);
    dspace_group_done(&d);
    store_close(d.st);
    cfg_destroy(d.cfg);
    unlink(path);
    char wal[80];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
}

int main(void)
{
    TEST_RUN(test_many_new_users_in_one_group);
    return TEST_DONE();
}
