/*
 * report_int — what report.c (one run, the metrics, CSV) and report_runs.c
 * (several runs side by side, the Pareto front) share: the text tables and
 * the JSON keys of a run. Only src/sim/report*.c include it.
 */
#ifndef MOKU_REPORT_INT_H
#define MOKU_REPORT_INT_H

#include <stdio.h>

#include "sim/report.h"

/* The bounded slowdown's bound of r: its bsld_tau, else 10 s. */
double report_tau(const struct report *r);

/* A text table: column 0 holds the row labels (left-aligned), the others
 * values (right-aligned); each column is as wide as its widest cell. */
#define REPORT_CELL 64

struct report_table {
    size_t ncols, nrows, cap;
    char (*cells)[REPORT_CELL]; /* nrows x ncols */
};

void report_table_init(struct report_table *t, size_t ncols);
/* Cell (row, col), REPORT_CELL bytes to fill. */
char *report_cell(struct report_table *t, size_t row, size_t col);
/* Append a row labelled label (its value cells empty); returns its index. */
size_t report_table_row(struct report_table *t, const char *label);
/* Print and free the table. No line ends with blanks. */
void report_table_print(FILE *f, struct report_table *t);
/* An average into a cell with fmt, "-" when there were no jobs. */
void report_fmt_avg(char *buf, const char *fmt, double v, size_t jobs);

/* A JSON string, escaped. */
void report_json_string(FILE *f, const char *s);
/* The one-run keys (without braces), then what follows them in every
 * report (percentiles, by_user, by_class), then ,"classes":{...}. */
void report_json_fields(FILE *f, const struct report *r);
void report_json_extras(FILE *f, const struct report *r);
void report_json_classes(FILE *f, const struct report *r);

#endif
