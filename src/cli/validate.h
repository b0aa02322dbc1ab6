/*
 * validate — `moku validate`: the command line of the schedule validator
 * (src/validate/val.h). Exit 0 valid, 1 violations, 2 bad input or usage.
 */
#ifndef MOKU_CLI_VALIDATE_H
#define MOKU_CLI_VALIDATE_H

int validate_main(int argc, char **argv);

#endif
