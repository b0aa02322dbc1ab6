/* wasset — see wasset.h. The files are pulled in whole by the assembler's
 * .incbin (paths relative to the top of the tree, where make runs); the
 * Makefile rebuilds this object when a file of web/ changes. Each file is
 * followed by a NUL so that its end symbol minus its start is its size. */
#include "web/wasset.h"

#include <string.h>

#define WASSET_INCBIN(sym, file)                                                        \
    __asm__(".section .rodata\n"                                                        \
            ".global " #sym "_start\n"                                                  \
            ".global " #sym "_end\n"                                                    \
            ".balign 16\n" #sym "_start:\n"                                             \
            ".incbin \"" file "\"\n" #sym "_end:\n"                                     \
            ".byte 0\n"                                                                 \
            ".previous\n");                                                             \
    extern const unsigned char sym##_start[], sym##_end[]

WASSET_INCBIN(wasset_index, "web/index.html");
WASSET_INCBIN(wasset_app, "web/app.js");
WASSET_INCBIN(wasset_style, "web/style.css");

const struct wasset *wasset_find(const char *path)
{
    static struct wasset files[] = {
        {"/index.html", "text/html; charset=utf-8", NULL, 0},
        {"/app.js", "text/javascript; charset=utf-8", NULL, 0},
        {"/style.css", "text/css; charset=utf-8", NULL, 0},
    };
    const unsigned char *start[] = {wasset_index_start, wasset_app_start, wasset_style_start};
    const unsigned char *end[] = {wasset_index_end, wasset_app_end, wasset_style_end};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (strcmp(path, files[i].path) != 0)
            continue;
        files[i].data = start[i];
        files[i].len = (size_t)(end[i] - start[i]);
        return &files[i];
    }
    return NULL;
}
