// SPDX-License-Identifier: MIT
/*
 * getopt.c - POSIX getopt(): short options, clustered ("-la"), with
 * arguments attached ("-c3") or separate ("-c 3"); "--" ends the options,
 * and so does the first operand (no GNU permutation).  A ':' after a
 * letter in optstring means it takes an argument; a leading ':' asks for
 * ':' instead of '?' when an argument is missing, without a message.
 */
#include <unistd.h>
#include <string.h>
#include <stdio.h>

char *optarg;
int optind = 1, opterr = 1, optopt;
static int optpos = 1;          /* position inside a cluster like -abc */

int getopt(int argc, char *const argv[], const char *optstring)
{
	const char *arg, *spec;
	int quiet = optstring[0] == ':';

	optarg = NULL;
	if (optind >= argc || !(arg = argv[optind]) || arg[0] != '-' || !arg[1])
		return -1;
	if (strcmp(arg, "--") == 0) {
		optind++;
		return -1;
	}
	optopt = arg[optpos];
	spec = optopt != ':' ? strchr(optstring, optopt) : NULL;
	if (!spec) {
		if (opterr && !quiet)
			fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], optopt);
		if (!arg[++optpos]) {
			optind++;
			optpos = 1;
		}
		return '?';
	}
	if (spec[1] == ':') {
		if (arg[optpos + 1]) {
			optarg = (char *)arg + optpos + 1;
		} else if (optind + 1 < argc) {
			optarg = argv[++optind];
		} else {
			optind++;
			optpos = 1;
			if (opterr && !quiet)
				fprintf(stderr, "%s: option requires an argument -- '%c'\n",
					argv[0], optopt);
			return quiet ? ':' : '?';
		}
		optind++;
		optpos = 1;
		return optopt;
	}
	if (!arg[++optpos]) {
		optind++;
		optpos = 1;
	}
	return optopt;
}
