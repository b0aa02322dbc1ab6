/* err — see err.h. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

int err_set(struct err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->usage = 0;
    }
    return -1;
}

int err_usage(struct err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->usage = 1;
    }
    return -1;
}

void err_clear(struct err *err)
{
    if (err) {
        err->msg[0] = '\0';
        err->usage = 0;
    }
}
