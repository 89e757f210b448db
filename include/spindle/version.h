/* SPDX-License-Identifier: MIT */
/*
 * The kernel's name and release (kernel/version.c): uname(2)'s answer and
 * /proc/version's line, which add the build's user, host, compiler and
 * time.
 */
#ifndef SPINDLE_VERSION_H
#define SPINDLE_VERSION_H

#define SPINDLE_SYSNAME "Spindle"
#define SPINDLE_RELEASE "0.1"
#define SPINDLE_NODENAME "spindle"     /* the host name: no sethostname(2) */

struct new_utsname;
extern const struct new_utsname init_uts;      /* uname(2) */
extern const char spindle_banner[];            /* /proc/version */

#endif /* SPINDLE_VERSION_H */
