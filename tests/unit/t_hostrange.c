/*
 * t_hostrange — numbered node names as ranges (util/hostrange): the name
 * after another, with and without zero padding; parsing a range and naming
 * its members; what is not a range.
 */
#include "test.h"
#include "util/hostrange.h"

static void test_next(void)
{
    CHECK(hostrange_next("n1", "n2"));
    CHECK(hostrange_next("n9", "n10"));
    CHECK(hostrange_next("node09", "node10"));
    CHECK(hostrange_next("node00099", "node00100"));
    CHECK(hostrange_next("n0", "n1"));
    CHECK(hostrange_next("rack1-7", "rack1-8"));
    CHECK(!hostrange_next("n1", "n3"));
    CHECK(!hostrange_next("n09", "n010")); /* width kept */
    CHECK(!hostrange_next("n9", "n010"));
    CHECK(!hostrange_next("n1", "m2"));
    CHECK(!hostrange_next("n", "n1"));      /* no number */
    CHECK(!hostrange_next("n[1]", "n[2]")); /* a bracket: never a range member */
    CHECK(!hostrange_next("n1234567890123456789", "n1234567890123456790")); /* too long */
}

/* The name after each name printf writes, padded or not, across carries. */
static void test_next_counts(void)
{
    char a[32], b[32], c[32];
    int bad = 0;
    for (int width = 0; width <= 5; width++)
        for (unsigned long long v = 0; v < 100500; v += v < 1200 ? 1 : 97) {
            snprintf(a, sizeof a, "cn%0*llu", width, v);
            snprintf(b, sizeof b, "cn%0*llu", a[2] == '0' && strlen(a) > 3 ? (int)strlen(a) - 2 : 0,
                     v + 1);
            snprintf(c, sizeof c, "cn%0*llu", width, v + 2);
            bad += !hostrange_next(a, b) || hostrange_next(a, c);
        }
    CHECK_EQ(bad, 0);
}

static void test_parse(void)
{
    struct hostrange r;
    char buf[32];
    CHECK(hostrange_parse("node[0098-0101]", &r));
    CHECK_EQ(r.plen, 4);
    CHECK_EQ(r.lo, 98);
    CHECK_EQ(r.hi, 101);
    CHECK_EQ(r.width, 4);
    CHECK_EQ(hostrange_name("node[0098-0101]", &r, 100, buf, sizeof buf), 0);
    CHECK_STR(buf, "node0100");
    CHECK(hostrange_parse("n[9-10]", &r));
    CHECK_EQ(r.width, 0);
    CHECK_EQ(hostrange_name("n[9-10]", &r, 10, buf, sizeof buf), 0);
    CHECK_STR(buf, "n10");
    CHECK_EQ(hostrange_name("n[9-10]", &r, 10, buf, 3), -1); /* does not fit */
    CHECK(!hostrange_parse("n[10-9]", &r));
    CHECK(!hostrange_parse("n[1-2]x", &r));
    CHECK(!hostrange_parse("n[1-]", &r));
    CHECK(!hostrange_parse("n[-2]", &r));
    CHECK(!hostrange_parse("n[a-2]", &r));
    CHECK(!hostrange_parse("n1", &r));
    CHECK(!hostrange_parse("n[1-1234567890123456789]", &r));
}

/* What the simulator writes (a run of next names) is what parse reads. */
static void test_round_trip(void)
{
    const char *runs[][3] = {{"n8", "n12", "n[8-12]"}, {"node0998", "node1002", "node[0998-1002]"}};
    for (size_t i = 0; i < 2; i++) {
        struct hostrange r;
        CHECK(hostrange_parse(runs[i][2], &r));
        char a[32], b[32], prev[32];
        hostrange_name(runs[i][2], &r, r.lo, a, sizeof a);
        hostrange_name(runs[i][2], &r, r.hi, b, sizeof b);
        CHECK_STR(a, runs[i][0]);
        CHECK_STR(b, runs[i][1]);
        for (unsigned long long x = r.lo + 1; x <= r.hi; x++) {
            hostrange_name(runs[i][2], &r, x - 1, prev, sizeof prev);
            hostrange_name(runs[i][2], &r, x, a, sizeof a);
            CHECK(hostrange_next(prev, a));
        }
    }
}

int main(void)
{
    TEST_RUN(test_next);
    TEST_RUN(test_next_counts);
    TEST_RUN(test_parse);
    TEST_RUN(test_round_trip);
    return TEST_DONE();
}
