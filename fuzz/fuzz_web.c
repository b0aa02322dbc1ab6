/*
 * fuzz_web — the body of the web view's POST /api/run (web/web.c): any
 * bytes, and whatever is accepted must be a request of the one shape the
 * daemon is then handed (what the daemon does with it is fuzz_wire's).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "web/web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    json_t *req = web_run_request((const char *)data, size, &why);
    if (!req) {
        if (!why)
            abort(); /* a refusal always says why */
        return 0;
    }
    json_t *args = json_object_get(req, "args");
    if (json_object_size(req) != 2 || !json_string_value(json_object_get(req, "cmd")) ||
        !json_is_array(args))
        abort();
    for (size_t i = 0; i < json_array_size(args); i++)
        if (!json_is_string(json_array_get(args, i)))
            abort();
    json_decref(req);
    return 0;
}
