/*
 * simulate — `moku simulate` (src/cli/simulate.c): replay a trace through
 * one or more configurations and report.
 */
#ifndef MOKU_CLI_SIMULATE_H
#define MOKU_CLI_SIMULATE_H

#include <stdio.h>

/* Run `moku simulate` with argv[0] = "simulate"; returns the exit status. */
int sim_main(int argc, char **argv);
/* Its part of moku's usage text; alone: as a whole usage message. */
void sim_usage(FILE *f, int alone);

#endif
