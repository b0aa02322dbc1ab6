/* wasset — see wasset.h. The files are pulled in whole by the assembler's
 * .incbin (paths relative to the top of the tree, where make runs); the
 * Makefile rebuilds this object when a file of web/ changes. Each file is
 * followed by a NUL so that its end symbol minus its start is its size. */
#include "web/wasset.h"

#include <string.h>

#define WASSET_INCBIN(sym, file)                                                                   \
    __asm__(".section .rodata\n"                                                                   \
            ".global " #sym "_start\n"                                                             \
            ".global " #sym "_end\n"                                                               \
            ".balign 16\n" #sym "_start:\n"                                                        \
            ".incbin \"" file "\"\n" #sym "_end:\n"                                                \
            ".byte 0\n"                                                                            \
            ".previous\n");                                                                        \
    extern const unsigned char sym##_start[], sym##_end[]

WASSET_INCBIN(wasset_index, "web/index.html");
WASSET_INCBIN(wasset_style, "web/style.css");
WASSET_INCBIN(wasset_app, "web/app.js");
WASSET_INCBIN(wasset_svg, "web/svg.js");
WASSET_INCBIN(wasset_queue, "web/queue.js");
WASSET_INCBIN(wasset_resv, "web/resv.js");
WASSET_INCBIN(wasset_fs, "web/fs.js");
WASSET_INCBIN(wasset_prio, "web/prio.js");
WASSET_INCBIN(wasset_history, "web/history.js");

#define HTML "text/html; charset=utf-8"
#define CSS "text/css; charset=utf-8"
#define JS "text/javascript; charset=utf-8"

/* Every file of web/ (tests/integration/web.sh checks that none is
 * missing). */
static const struct {
    const char *path, *type;
    const unsigned char *start, *end;
} files[] = {
    {"/index.html", HTML, wasset_index_start, wasset_index_end},
    {"/style.css", CSS, wasset_style_start, wasset_style_end},
    {"/app.js", JS, wasset_app_start, wasset_app_end},
    {"/svg.js", JS, wasset_svg_start, wasset_svg_end},
    {"/queue.js", JS, wasset_queue_start, wasset_queue_end},
    {"/resv.js", JS, wasset_resv_start, wasset_resv_end},
    {"/fs.js", JS, wasset_fs_start, wasset_fs_end},
    {"/prio.js", JS, wasset_prio_start, wasset_prio_end},
    {"/history.js", JS, wasset_history_start, wasset_history_end},
};

const struct wasset *wasset_find(const char *path)
{
    static struct wasset found;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (strcmp(path, files[i].path) != 0)
            continue;
        found = (struct wasset){files[i].path, files[i].type, files[i].start,
                                (size_t)(files[i].end - files[i].start)};
        return &found;
    }
    return NULL;
}
