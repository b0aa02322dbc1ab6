/*
 * fuzz_qsub — qsub's command line and the script's #PBS lines (cmd/qsub.c),
 * then the JSON the client sends and the daemon reads back
 * (qsub_from_json). Input: the command-line words, one per line, up to the
 * first NUL byte; the script after it.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/qsub.h"
#include "fuzz.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t alen = nul ? (size_t)(nul - data) : size;
    char *args = malloc(alen + 1);
    memcpy(args, data, alen);
    args[alen] = '\0';
    char *argv[MAX_ARGS + 2] = {"qsub"};
    int argc = 1;
    for (char *p = args, *save = NULL, *w; argc < MAX_ARGS && (w = strtok_r(p, "\n", &save));
         p = NULL)
        argv[argc++] = w;
    argv[argc] = NULL;
    const char *script = nul ? (const char *)nul + 1 : "";
    size_t slen = nul ? size - alen - 1 : 0;
    char *envp[] = {"HOME=/home/u", "PATH=/bin", "PBS_X=1", NULL};
    struct qsub_req q;
    struct err e;
    if (qsub_parse(argc, argv, script, slen, "job.sh", "/home/u", envp, 1700000000L, &q, &e) == 0) {
        json_t *j = qsub_to_json(&q);
        struct qsub_req back;
        if (j && qsub_from_json(j, &back, &e) == 0) {
            qsub_check(&back, &e);
            qsub_free(&back);
        }
        json_decref(j);
        qsub_free(&q);
    }
    free(args);
    return 0;
}
