/*
 * qsub_array — qsub's job array options: Torque's -t RANGE[%N] and PBS
 * Pro's -J A-B[:STEP][%N], read with util/arange. The request carries the
 * value as given (arange's form is a list of indices, which can be far
 * longer than what was typed); whoever makes the tasks parses it again.
 *
 * qsub checks against the most any configuration allows (ARANGE_LIMIT_MAX);
 * the daemon, which knows MAXJOBARRAYSIZE, holds a request to that.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/qsub.h"
#include "cmd/qsub_int.h"
#include "util/arange.h"
#include "util/mem.h"

int qsub_check_array(int pbs, const char *s, struct err *err)
{
    if (strlen(s) > QSUB_MAX_PATH)
        return err_set(err, "array range longer than %d bytes", QSUB_MAX_PATH);
    struct arange a;
    int rc = pbs ? arange_parse_pbs(s, ARANGE_LIMIT_MAX, &a, err)
                 : arange_parse_torque(s, ARANGE_LIMIT_MAX, &a, err);
    if (rc == 0)
        arange_free(&a);
    return rc;
}

int qsub_opt_array(struct qsub_req *r, int pbs, const char *v, struct err *err)
{
    if (qsub_check_array(pbs, v, err) < 0)
        return -1;
    /* The last one given wins, as with qsub's other options (the command
     * line's over the script's #PBS lines): one array per job. */
    free(r->array);
    free(r->array_pbs);
    r->array = r->array_pbs = NULL;
    if (pbs)
        r->array_pbs = xstrdup(v);
    else
        r->array = xstrdup(v);
    return 0;
}
