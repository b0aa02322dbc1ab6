/*
 * markup — text written into HTML or XML (the simulator's HTML report and
 * its SVG charts): one rule for both, so a label shows the same in either.
 */
#ifndef MOKU_MARKUP_H
#define MOKU_MARKUP_H

#include <stdio.h>

/* Write s (NULL: nothing) to f with & < > " ' as character references
 * (&#39; for the apostrophe: HTML 4 has no &apos;, XML reads both), safe in
 * element content and quoted attribute values alike. Control characters are
 * dropped, but tab, and newline when keep_newline (HTML keeps it in <pre>; in
 * an SVG label it would only be white space). */
void markup_text(FILE *f, const char *s, int keep_newline);

#endif
