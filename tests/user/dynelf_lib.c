// SPDX-License-Identifier: MIT
/*
 * libdynelf.so - the shared library tests/user/dynelf.c loads with
 * dlopen(): a constructor that ld.so runs, a data symbol and a function
 * that calls back into libc (snprintf), so that its relocations against
 * libc.so.6 must have been done.
 */
#include <stdio.h>
#include <stddef.h>

int dynelf_lib_loaded;

__attribute__((constructor)) static void dynelf_lib_init(void)
{
	dynelf_lib_loaded++;
}

int dynelf_lib_multiply(char *buf, size_t len, int a, int b)
{
	return snprintf(buf, len, "%d * %d = %d", a, b, a * b);
}
