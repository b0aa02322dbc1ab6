/*
 * hostrange — numbered node names written as ranges, as Slurm's hostlists
 * do: node[00001-04096] is node00001 .. node04096. The simulator writes a
 * job's nodes this way (a job of thousands of one-processor nodes is one
 * entry, not thousands) and the validator reads them back.
 *
 * A name is a prefix and a decimal suffix. The next name counts the suffix
 * up, keeping its width when it has a leading zero (node09 -> node10,
 * n9 -> n10). A range prefix[lo-hi] holds every name from prefix+lo to
 * prefix+hi, each written with lo's width when lo has a leading zero.
 */
#ifndef MOKU_HOSTRANGE_H
#define MOKU_HOSTRANGE_H

#include <stddef.h>

/* 1 when b is the name after a (same prefix, suffix one up). */
int hostrange_next(const char *a, const char *b);

struct hostrange {
    size_t plen;               /* the prefix: word[0 .. plen) */
    unsigned long long lo, hi; /* lo <= hi */
    int width;                 /* zero-padded to this many digits; 0: not padded */
};

/* Parse "prefix[lo-hi]" (no ":procs"); 1 when word is one, 0 when not. */
int hostrange_parse(const char *word, struct hostrange *r);

/* The name of number x in range r of word into buf (n bytes); -1 when it
 * does not fit. */
int hostrange_name(const char *word, const struct hostrange *r, unsigned long long x, char *buf,
                   size_t n);

#endif
