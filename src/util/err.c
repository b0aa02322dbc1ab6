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
    }
    return -1;
}

void err_clear(struct err *err)
{
    if (err)
        err->msg[0] = '\0';
}
