/* resvlog — see resvlog.h. */
#include "sim/resvlog.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/acl.h"
#include "policy/srcfg.h"
#include "sim/sim.h"
#include "util/mem.h"
#include "util/obuf.h"
#include "util/sbuf.h"
#include "util/strmap.h"

struct rec {
    char *id, *type, *nodes, *acl, *flags;
    long created, start, end, released; /* end LONG_MAX: none; released -1: not */
    unsigned long seen;                 /* the pass that last saw it */
    unsigned long serial;               /* the engine object's (setres -m makes a new one) */
};

struct resvlog {
    struct rec *v;
    size_t n, cap;
    struct strmap ids;
    unsigned long pass;
};

struct resvlog *resvlog_create(void)
{
    struct resvlog *l = xcalloc(1, sizeof *l);
    strmap_init(&l->ids);
    return l;
}

void resvlog_destroy(struct resvlog *l)
{
    if (!l)
        return;
    strmap_free(&l->ids);
    for (size_t i = 0; i < l->n; i++) {
        struct rec *r = &l->v[i];
        free(r->id);
        free(r->nodes);
        free(r->acl);
        free(r->flags);
    }
    free(l->v);
    free(l);
}

static char *nodes_text(const struct sched *s, const struct resv *r)
{
    struct obuf *f = obuf_mem();
    sim_format_resv_nodes(f, s, r->nodes, r->nnodes);
    size_t len = 0;
    const char *t = obuf_data(f, &len);
    char *text = xstrndup(t, len);
    obuf_close(f, NULL);
    return text;
}

static char *flags_text(const struct resv *r)
{
    char *t = xmalloc(512);
    struct sbuf b = {t, 512, 0};
    int any = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        const char *name = srcfg_flag_name(1u << bit);
        if ((r->flags & (1u << bit)) && strcmp(name, "?") != 0) {
            sbuf_put(&b, any++ ? " " : "");
            sbuf_put(&b, name);
        }
    }
    if (r->access == SRCFG_DEDICATED)
        sbuf_put(&b, any++ ? " DEDICATEDRESOURCE" : "DEDICATEDRESOURCE");
    sbuf_end(&b);
    return t;
}

/* A new record for r, made at `created`. */
static void add(struct resvlog *l, const struct sched *s, const struct resv *r, long created)
{
    int n = acl_format(r->acl, NULL, 0);
    char *acl = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    acl_format(r->acl, acl, (size_t)(n > 0 ? n : 0) + 1);
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n] = (struct rec){xstrdup(r->id),
                              r->kind == RESV_STANDING   ? "standing"
                              : r->kind == RESV_EXTERNAL ? "external"
                                                         : "user",
                              nodes_text(s, r),
                              acl,
                              flags_text(r),
                              created,
                              r->start,
                              r->end,
                              -1,
                              l->pass,
                              r->serial};
    strmap_put(&l->ids, l->v[l->n].id, l->n);
    l->n++;
}

void resvlog_note(struct resvlog *l, const struct sched *s, long now)
{
    l->pass++;
    for (size_t i = 0; i < sched_nresv(s); i++) {
        const struct resv *r = sched_resv_at(s, i);
        size_t k;
        if (!strmap_get(&l->ids, r->id, &k)) {
            add(l, s, r, r->created);
        } else if (l->v[k].serial != r->serial) {
            /* setres -m: the old form ends now, the new one is made now
             * (jobs that started before keep running under the old). */
            l->v[k].released = now;
            l->v[k].seen = l->pass;
            add(l, s, r, now);
        } else {
            l->v[k].seen = l->pass;
        }
    }
    for (size_t i = 0; i < l->n; i++) {
        struct rec *r = &l->v[i];
        if (r->seen != l->pass && r->released < 0 && r->end > now)
            r->released = now; /* gone before its end: released (releaseres) */
        if (r->seen != l->pass && r->released < 0 && r->end <= now)
            r->seen = l->pass; /* ended: nothing more to note */
    }
}

/* A CSV field, quoted when it must be. */
static void field(struct obuf *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        obuf_puts(f, s);
        return;
    }
    obuf_putc(f, '"');
    for (; *s; s++) {
        if (*s == '"')
            obuf_putc(f, '"');
        obuf_putc(f, *s);
    }
    obuf_putc(f, '"');
}

int resvlog_write(const struct resvlog *l, struct obuf *f)
{
    obuf_puts(f, "id,type,created,start,end,released,nodes,acl,flags\n");
    for (size_t i = 0; i < l->n; i++) {
        const struct rec *r = &l->v[i];
        field(f, r->id);
        obuf_putc(f, ',');
        obuf_puts(f, r->type);
        obuf_putc(f, ',');
        obuf_ll(f, r->created);
        obuf_putc(f, ',');
        obuf_ll(f, r->start);
        obuf_putc(f, ',');
        if (r->end != LONG_MAX && r->end < LONG_MAX / 2)
            obuf_ll(f, r->end);
        obuf_putc(f, ',');
        if (r->released >= 0)
            obuf_ll(f, r->released);
        obuf_putc(f, ',');
        field(f, r->nodes);
        obuf_putc(f, ',');
        field(f, r->acl);
        obuf_putc(f, ',');
        field(f, r->flags);
        obuf_putc(f, '\n');
    }
    return obuf_failed(f) ? -1 : 0;
}
