/* val_csv — see val_int.h: CSV rows as RFC 4180 writes them. */
#include "validate/val_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void val_row_free(struct val_row *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    free(r->f);
    *r = (struct val_row){0};
}

/* Append byte c to the field being read. */
static void put(char **buf, size_t *len, size_t *cap, char c)
{
    *buf = xgrow(*buf, cap, *len + 2, 1);
    (*buf)[(*len)++] = c;
    (*buf)[*len] = '\0';
}

static void end_field(struct val_row *r, size_t *cap, char **buf, size_t *len)
{
    r->f = xgrow(r->f, cap, r->n + 1, sizeof *r->f);
    r->f[r->n++] = *buf ? *buf : xstrdup("");
    *buf = NULL;
    *len = 0;
}

int val_csv_row(FILE *f, const char *path, long *line, struct val_row *r, struct err *err)
{
    *r = (struct val_row){0};
    size_t cap = 0, len = 0, bcap = 0;
    char *buf = NULL;
    int c, quoted = 0, any = 0;
    r->line = *line + 1;
    while ((c = fgetc(f)) != EOF) {
        any = 1;
        if (quoted) {
            if (c == '"') {
                int d = fgetc(f);
                if (d == '"') {
                    put(&buf, &len, &bcap, '"');
                    continue;
                }
                quoted = 0;
                if (d == EOF)
                    break;
                c = d;
            } else {
                if (c == '\n')
                    ++*line; /* a line break inside a quoted field */
                put(&buf, &len, &bcap, (char)c);
                continue;
            }
        }
        if (c == '"' && len == 0) {
            quoted = 1;
            if (!buf) { /* an empty quoted field is still a field */
                buf = xstrdup("");
                bcap = 1;
            }
        } else if (c == ',') {
            end_field(r, &cap, &buf, &len);
            bcap = 0;
        } else if (c == '\n') {
            ++*line;
            end_field(r, &cap, &buf, &len);
            return 1;
        } else if (c != '\r') {
            put(&buf, &len, &bcap, (char)c);
        }
    }
    if (quoted) {
        free(buf);
        val_row_free(r);
        return err_set(err, "%s:%ld: a quoted field is not closed", path, r->line);
    }
    if (!any)
        return 0;
    ++*line;
    end_field(r, &cap, &buf, &len);
    return 1;
}
