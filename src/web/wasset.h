/*
 * wasset — the web view's files (web/ in the source tree), compiled into
 * moku: the daemon serves its page with nothing to install beside the
 * binary and nothing fetched from elsewhere.
 */
#ifndef MOKU_WASSET_H
#define MOKU_WASSET_H

#include <stddef.h>

struct wasset {
    const char *path; /* "/index.html" */
    const char *type; /* its Content-Type */
    const unsigned char *data;
    size_t len;
};

/* The file served at path, or NULL. */
const struct wasset *wasset_find(const char *path);

#endif
