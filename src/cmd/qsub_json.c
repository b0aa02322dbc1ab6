/*
 * qsub_json — the request's field table and what it drives: qsub_check (every
 * rule of struct qsub_req in qsub.h, field by field, then the processor
 * request's invariant), qsub_to_json and qsub_from_json (the client/daemon
 * wire; the daemon's side trusts nothing and checks every field again). One
 * table entry per field gives its JSON key, its kind and its bounds, so the
 * three cannot disagree on a field.
 *
 * What it is not: the parser (qsub.c, which also holds the text checks used
 * here, declared in qsub_int.h). It does no I/O.
 */
#include "cmd/qsub.h"

#include <stddef.h>
#include <string.h>

#include "cmd/qsub_int.h"
#include "util/mem.h"

/* ----------------------------------------------------------------- fields */

enum fkind { F_STR, F_INT, F_LONG, F_BOOL, F_JOIN, F_RERUN, F_FEATURES, F_ENV };

/* One field of the request: how it is checked and how it travels. */
struct field {
    const char *key;
    enum fkind kind;
    size_t off;
    enum qsub_sclass sclass; /* F_STR */
    int required;            /* F_STR */
    long long min, max;      /* F_INT, F_LONG */
};

/* clang-format off */
#define OFF(m) offsetof(struct qsub_req, m)
#define STR(k, m, c, req) {k, F_STR, OFF(m), c, req, 0, 0}
#define NUM(k, kind, m, lo, hi) {k, kind, OFF(m), QSUB_S_WORD, 0, lo, hi}
#define OTHER(k, kind, m) {k, kind, OFF(m), QSUB_S_WORD, 0, 0, 0}
/* clang-format on */

static const struct field fields[] = {
    STR("name", name, QSUB_S_NAME, 1),
    STR("account", account, QSUB_S_WORD, 0),
    STR("group", group, QSUB_S_WORD, 0),
    STR("queue", queue, QSUB_S_WORD, 0),
    STR("qos", qos, QSUB_S_WORD, 0),
    STR("advres", advres, QSUB_S_WORD, 0),
    STR("depend", depend, QSUB_S_DEPEND, 0),
    STR("array", array, QSUB_S_ARRAY, 0),
    STR("array_pbs", array_pbs, QSUB_S_ARRAY_PBS, 0),
    STR("out_path", out_path, QSUB_S_PATH, 0),
    STR("err_path", err_path, QSUB_S_PATH, 0),
    OTHER("join", F_JOIN, join),
    STR("cwd", cwd, QSUB_S_PATH, 1),
    NUM("start_after", F_LONG, start_after, 0, QSUB_MAX_EPOCH),
    OTHER("hold", F_BOOL, hold),
    OTHER("exclusive", F_BOOL, exclusive),
    NUM("nodes", F_INT, nodes, 0, QSUB_MAX_COUNT),
    NUM("ppn", F_INT, ppn, 1, QSUB_MAX_COUNT),
    NUM("tasks", F_INT, tasks, 1, QSUB_MAX_COUNT),
    OTHER("features", F_FEATURES, features),
    STR("hosts", hosts, QSUB_S_HOSTS, 0),
    NUM("walltime", F_LONG, walltime, 0, QSUB_MAX_WALLTIME),
    NUM("mem_mb", F_LONG, mem_mb, 0, QSUB_MAX_MEM_MB),
    NUM("vmem_mb", F_LONG, vmem_mb, 0, QSUB_MAX_MEM_MB),
    NUM("nice", F_INT, nice, QSUB_MIN_NICE, QSUB_MAX_NICE),
    OTHER("env", F_ENV, env),
    STR("mail_events", mail_events, QSUB_S_MAIL, 0),
    STR("mail_users", mail_users, QSUB_S_MAILTO, 0),
    OTHER("rerunnable", F_RERUN, rerunnable),
    STR("shell", shell, QSUB_S_PATH, 0),
    STR("script", script, QSUB_S_SCRIPT, 0), /* required unless interactive: qsub_check */
    OTHER("interactive", F_BOOL, interactive),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

#define FIELD(r, f, type) ((type *)((char *)(r) + (f)->off))
#define CFIELD(r, f, type) ((const type *)((const char *)(r) + (f)->off))

/* ------------------------------------------------------------ qsub_check */

static int check_range(long long v, const struct field *f, struct err *err)
{
    if (v < f->min || v > f->max)
        return err_set(err, "%lld..%lld expected, got %lld", f->min, f->max, v);
    return 0;
}

static int check_env(const struct qsub_req *r, struct err *err)
{
    if (r->nenv > QSUB_MAX_ENV || (r->nenv && !r->env))
        return err_set(err, "more than %d variables", QSUB_MAX_ENV);
    size_t total = 0;
    for (size_t i = 0; i < r->nenv; i++) {
        const struct qsub_env *v = &r->env[i];
        if (!v->name || !v->value || !qsub_env_name_ok(v->name, strlen(v->name)))
            return err_set(err, "bad variable name '%s'", v->name ? qsub_shown(v->name).s : "");
        if (qsub_check_env_value(v->name, v->value, err) < 0)
            return -1;
        for (size_t k = 0; k < i; k++) {
            if (strcmp(r->env[k].name, v->name) == 0)
                return err_set(err, "variable %s given twice", v->name);
        }
        total += strlen(v->name) + strlen(v->value) + 2;
    }
    if (total > (size_t)QSUB_MAX_ENV_BYTES)
        return err_set(err, "%zu bytes in all, more than 1 MiB", total);
    return 0;
}

static int check_features(const struct qsub_req *r, struct err *err)
{
    if (r->nfeatures > QSUB_MAX_FEATURES || (r->nfeatures && !r->features))
        return err_set(err, "more than %d features", QSUB_MAX_FEATURES);
    for (size_t i = 0; i < r->nfeatures; i++) {
        if (!r->features[i] || qsub_check_str(QSUB_S_WORD, r->features[i], err) < 0)
            return r->features[i] ? -1 : err_set(err, "missing feature");
    }
    return 0;
}

static int check_field(const struct qsub_req *r, const struct field *f, struct err *err)
{
    switch (f->kind) {
    case F_STR: {
        const char *s = *CFIELD(r, f, char *);
        if (!s)
            return f->required ? err_set(err, "missing") : 0;
        return qsub_check_str(f->sclass, s, err);
    }
    case F_INT:
        return check_range(*CFIELD(r, f, int), f, err);
    case F_LONG:
        return check_range(*CFIELD(r, f, long), f, err);
    case F_BOOL:
        return *CFIELD(r, f, int) == 0 || *CFIELD(r, f, int) == 1 ? 0
                                                                  : err_set(err, "0 or 1 expected");
    case F_JOIN:
        return r->join <= QSUB_JOIN_EO ? 0 : err_set(err, "bad join value");
    case F_RERUN:
        return *CFIELD(r, f, int) >= -1 && *CFIELD(r, f, int) <= 1
                   ? 0
                   : err_set(err, "-1, 0 or 1 expected");
    case F_FEATURES:
        return check_features(r, err);
    case F_ENV:
        return check_env(r, err);
    }
    return 0;
}

/* A script is what a batch job runs; an interactive job runs a shell on
 * qsub's terminal instead, so it has none, and is one job, never an array. */
static int check_interactive(const struct qsub_req *r, struct err *err)
{
    if (!r->interactive)
        return r->script ? 0 : err_set(err, "request: 'script': missing");
    if (r->script)
        return err_set(err, "request: 'script' given with 'interactive' (an interactive job "
                            "runs no script)");
    if (r->array || r->array_pbs)
        return err_set(err, "request: 'interactive' with an array (-t, -J): an interactive job "
                            "is one job");
    return 0;
}

int qsub_check(const struct qsub_req *r, struct err *err)
{
    struct err e;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (check_field(r, &fields[i], &e) < 0)
            return err_set(err, "request: '%s': %s", fields[i].key, e.msg);
    }
    if (r->nodes == 0 ? r->ppn != 1 : (long long)r->nodes * r->ppn != r->tasks)
        return err_set(err,
                       "request: nodes %d, ppn %d and tasks %d disagree (expected tasks = "
                       "nodes x ppn, or nodes 0 and ppn 1)",
                       r->nodes, r->ppn, r->tasks);
    if (r->hosts && (r->nodes || qsub_hosts_procs(r->hosts) != r->tasks))
        return err_set(err,
                       "request: hosts '%s' and nodes %d, tasks %d disagree (expected nodes 0 "
                       "and tasks the hosts' processors)",
                       r->hosts, r->nodes, r->tasks);
    if (r->array && r->array_pbs)
        return err_set(err,
                       "request: 'array' and 'array_pbs' both given (qsub -t or -J, not both)");
    return check_interactive(r, err);
}

/* ---------------------------------------------------------- qsub_to_json */

static json_t *env_to_json(const struct qsub_req *r)
{
    json_t *o = json_object();
    for (size_t i = 0; i < r->nenv; i++)
        json_object_set_new(o, r->env[i].name, json_string(r->env[i].value));
    return o;
}

/* A field's JSON value, or NULL when it is left out. */
static json_t *field_to_json(const struct qsub_req *r, const struct field *f)
{
    switch (f->kind) {
    case F_STR: {
        const char *s = *CFIELD(r, f, char *);
        return s ? json_string(s) : NULL;
    }
    case F_INT:
        return json_integer(*CFIELD(r, f, int));
    case F_LONG:
        return json_integer(*CFIELD(r, f, long));
    case F_BOOL:
        return json_boolean(*CFIELD(r, f, int));
    case F_JOIN:
        return r->join == QSUB_JOIN_NONE ? NULL
                                         : json_string(r->join == QSUB_JOIN_OE ? "oe" : "eo");
    case F_RERUN:
        return *CFIELD(r, f, int) < 0 ? NULL : json_boolean(*CFIELD(r, f, int));
    case F_FEATURES: {
        if (!r->nfeatures)
            return NULL;
        json_t *a = json_array();
        for (size_t i = 0; i < r->nfeatures; i++)
            json_array_append_new(a, json_string(r->features[i]));
        return a;
    }
    case F_ENV:
        return r->nenv ? env_to_json(r) : NULL;
    }
    return NULL;
}

json_t *qsub_to_json(const struct qsub_req *r)
{
    json_t *o = json_object();
    for (size_t i = 0; i < NFIELDS; i++) {
        json_t *v = field_to_json(r, &fields[i]);
        if (v && json_object_set_new(o, fields[i].key, v) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* -------------------------------------------------------- qsub_from_json */

/* A JSON string as a C string: no NUL inside, at most max bytes. Caller frees. */
static int json_str(const json_t *v, size_t max, char **out, struct err *err)
{
    if (!json_is_string(v))
        return err_set(err, "expected a string");
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (strlen(s) != n)
        return err_set(err, "contains a NUL byte");
    if (n > max)
        return err_set(err, "longer than %zu bytes", max);
    *out = xstrndup(s, n);
    return 0;
}

static int features_from_json(struct qsub_req *r, const json_t *v, struct err *err)
{
    if (!json_is_array(v))
        return err_set(err, "expected an array of strings");
    if (json_array_size(v) > QSUB_MAX_FEATURES)
        return err_set(err, "more than %d features", QSUB_MAX_FEATURES);
    r->features = xcalloc(json_array_size(v), sizeof *r->features);
    for (size_t i = 0; i < json_array_size(v); i++) {
        if (json_str(json_array_get(v, i), QSUB_MAX_WORD, &r->features[i], err) < 0)
            return -1;
        r->nfeatures++;
    }
    return 0;
}

static int env_from_json(struct qsub_req *r, const json_t *v, struct err *err)
{
    if (!json_is_object(v))
        return err_set(err, "expected an object of strings");
    if (json_object_size(v) > QSUB_MAX_ENV)
        return err_set(err, "more than %d variables", QSUB_MAX_ENV);
    const char *key;
    size_t klen;
    json_t *val;
    r->env = xcalloc(json_object_size(v), sizeof *r->env);
    json_object_keylen_foreach((json_t *)v, key, klen, val)
    {
        char *s = NULL;
        if (klen != strlen(key) || !qsub_env_name_ok(key, klen))
            return err_set(err, "bad variable name '%s'", qsub_shown(key).s);
        if (json_str(val, QSUB_MAX_ENV_VALUE, &s, err) < 0)
            return -1;
        r->env[r->nenv].name = xstrndup(key, klen);
        r->env[r->nenv++].value = s;
    }
    return 0;
}

/* The longest string of a class (copying a hostile megabyte is not needed). */
static size_t class_max(enum qsub_sclass c)
{
    switch (c) {
    case QSUB_S_NAME:
        return QSUB_MAX_NAME;
    case QSUB_S_WORD:
    case QSUB_S_MAILTO:
        return QSUB_MAX_WORD;
    case QSUB_S_PATH:
    case QSUB_S_DEPEND:
    case QSUB_S_HOSTS:
    case QSUB_S_ARRAY:
    case QSUB_S_ARRAY_PBS:
        return QSUB_MAX_PATH;
    case QSUB_S_MAIL:
        return 8;
    case QSUB_S_SCRIPT:
        break;
    }
    return (size_t)QSUB_MAX_SCRIPT;
}

static int field_from_json(struct qsub_req *r, const struct field *f, const json_t *v,
                           struct err *err)
{
    if (!v || json_is_null(v))
        return f->kind == F_STR && f->required ? err_set(err, "missing") : 0;
    switch (f->kind) {
    case F_STR:
        return json_str(v, class_max(f->sclass), FIELD(r, f, char *), err);
    case F_INT:
    case F_LONG:
        if (!json_is_integer(v))
            return err_set(err, "expected an integer");
        if (check_range(json_integer_value(v), f, err) < 0)
            return -1;
        if (f->kind == F_INT)
            *FIELD(r, f, int) = (int)json_integer_value(v);
        else
            *FIELD(r, f, long) = (long)json_integer_value(v);
        return 0;
    case F_BOOL:
    case F_RERUN:
        if (!json_is_boolean(v))
            return err_set(err, "expected true or false");
        *FIELD(r, f, int) = json_is_true(v);
        return 0;
    case F_JOIN: {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        if (strcmp(s, "oe") && strcmp(s, "eo") && strcmp(s, "n"))
            return err_set(err, "expected \"oe\", \"eo\" or \"n\"");
        r->join = s[0] == 'o' ? QSUB_JOIN_OE : s[0] == 'e' ? QSUB_JOIN_EO : QSUB_JOIN_NONE;
        return 0;
    }
    case F_FEATURES:
        return features_from_json(r, v, err);
    case F_ENV:
        return env_from_json(r, v, err);
    }
    return 0;
}

static const struct field *find_field(const char *key, size_t klen)
{
    if (klen != strlen(key))
        return NULL;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (strcmp(fields[i].key, key) == 0)
            return &fields[i];
    }
    return NULL;
}

int qsub_from_json(const json_t *j, struct qsub_req *out, struct err *err)
{
    if (!json_is_object(j))
        return err_set(err, "request: not a JSON object");
    const char *key;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach((json_t *)j, key, klen, v)
    {
        if (!find_field(key, klen))
            return err_set(err, "request: unknown field '%s'", qsub_shown(key).s);
    }
    struct qsub_req r;
    qsub_req_init(&r);
    struct err e;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (field_from_json(&r, &fields[i], json_object_get(j, fields[i].key), &e) < 0) {
            qsub_free(&r);
            return err_set(err, "request: '%s': %s", fields[i].key, e.msg);
        }
    }
    if (qsub_check(&r, err) < 0) {
        qsub_free(&r);
        return -1;
    }
    *out = r;
    return 0;
}
