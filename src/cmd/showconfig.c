/*
 * showconfig — the configuration in effect: every parameter with its value
 * and every object line (cfg_show), Maui's defaults when the context has no
 * configuration. `showconfig NAME...` keeps the named parameters (with
 * their indexed values). JSON: an object from each line's name (`NAME`,
 * `NAME[index]`, `NODECFG[n01]`) to its value text, null when unset.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd_int.h"
#include "util/mem.h"

/* One line of cfg_show's text: the name is the first word, the value the
 * rest after the padding. Modifies line in place. */
static void split_line(char *line, const char **key, const char **val)
{
    char *p = line;
    while (*p && *p != ' ')
        p++;
    if (*p)
        *p++ = '\0';
    while (*p == ' ')
        p++;
    *key = line;
    *val = p;
}

/* Whether key is one of the wanted parameters, or any when none is named. */
static int wanted(const char *key, const char *const *names, int n)
{
    if (n == 0)
        return 1;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        if (strncmp(key, names[i], len) == 0 && (key[len] == '\0' || key[len] == '['))
            return 1;
    }
    return 0;
}

static void emit(struct cmd_buf *out, json_t *obj, const char *key, const char *val)
{
    if (obj) {
        json_t *k = cmd_jstr(key); /* a key must be UTF-8 too */
        json_object_set_new(obj, json_string_value(k),
                            cmd_jstr(strcmp(val, "[NONE]") == 0 ? NULL : val));
        json_decref(k);
    } else
        cmd_buf_printf(out, "%-30s  %s\n", key, val);
}

/* Go through cfg_show's lines, keeping the wanted ones. The unfiltered text
 * is passed through untouched. */
static void show(struct cmd_buf *out, char *text, const char *const *names, int n, int json)
{
    if (!json && n == 0) {
        cmd_buf_puts(out, text);
        return;
    }
    json_t *obj = json ? json_object() : NULL;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *key, *val;
        split_line(line, &key, &val);
        if (*key && wanted(key, names, n))
            emit(out, obj, key, val);
    }
    if (obj)
        cmd_json_out(out, obj);
}

int cmd_showconfig(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                   struct err *err)
{
    const char **names = xcalloc((size_t)a->argc + 1, sizeof *names);
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        const struct cfg_param *p = w[0] == '-' ? NULL : cfg_param_find(w);
        if (!p) {
            free(names);
            if (w[0] == '-')
                return err_usage(err, "showconfig: unknown option '%s'", cmd_word(w));
            return err_set(err, "showconfig: unknown parameter '%s'", cmd_word(w));
        }
        names[i] = p->name; /* the documented spelling, as cfg_show prints it */
    }
    struct cfg *own = c->cfg ? NULL : cfg_create();
    char *text = cfg_show(c->cfg ? c->cfg : own);
    show(out, text, names, a->argc, a->json);
    free(text);
    cfg_destroy(own);
    free(names);
    return 0;
}
