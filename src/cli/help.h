/* help.h - the --help text of the cavegen tool. */
#ifndef CAVEGEN_CLI_HELP_H
#define CAVEGEN_CLI_HELP_H

#include <stdio.h>

/* Prints the help to fp (stdout for --help). */
void cli_print_help(FILE *fp);

#endif
