/* SPDX-License-Identifier: MIT */
/* inttypes.h - printf formats for the fixed-width types (LP64). */
#ifndef _INTTYPES_H
#define _INTTYPES_H

#include <stdint.h>

#define PRId64 "ld"
#define PRIu64 "lu"
#define PRIx64 "lx"
#define PRIu32 "u"
#define PRIx32 "x"

#endif
