/*
 * utf8 — UTF-8 as moku shows it to people: decoding one sequence, which
 * code points must never reach another user's terminal or page as they
 * are, and a copy of a text with those written out as escapes.
 *
 * "Hidden" code points change how the text around them is read without
 * showing themselves: controls (C0, DEL, C1: a terminal executes them),
 * format characters (Unicode category Cf: the bidi embeddings, overrides and
 * isolates U+202A-202E and U+2066-2069, the marks U+200E/200F/061C,
 * zero-width characters, the BOM, tags) and the line and paragraph
 * separators U+2028/2029. A job named with U+202E shows its name, and
 * whatever follows it on the line, reversed to every user who runs qstat.
 * moku refuses them where a user names something others see (qsub -N,
 * qalter -N, accounts, paths) and escapes them on output for what was
 * stored before.
 */
#ifndef MOKU_UTF8_H
#define MOKU_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes left), its code point in
 * *cp; 0 if invalid (overlong forms, surrogates and > U+10FFFF included, as
 * jansson refuses them too). */
size_t utf8_seq(const unsigned char *s, size_t n, unsigned long *cp);

/* Whether cp is a control (C0 but tab, DEL, C1), a format character (Cf)
 * or a line or paragraph separator (Zl, Zp). Tab: the caller's choice. */
int utf8_hidden(unsigned long cp);

/* Whether s is valid UTF-8 free of hidden code points (tab counts as one). */
int utf8_plain(const char *s);

/* s with each hidden code point (tab included) written "\u{HHHH}" and each
 * byte of invalid UTF-8 "\xHH" (caller frees); NULL for NULL. */
char *utf8_escape(const char *s);

#endif
