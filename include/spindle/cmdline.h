/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - the kernel command line as text: joining its pieces,
 * cutting it into words, matching a word to an option (lib/cmdline.c).
 *
 * kernel/cmdline.c builds the line at boot (GRUB's, then the fw_cfg
 * file's) and runs the __setup() handlers with these; they know nothing
 * of where the line came from, so they are portable and also run in the
 * host unit tests (tests/unit/check_cmdline.c) and under the fuzzer
 * (tests/fuzz/fuzz_cmdline.c).
 *
 * The line's grammar, as Linux's: words are separated by spaces; a double
 * quote switches quoting on or off and is not part of the word, so that
 * dm-mod.create="lin,,,rw,0 16384 linear ram0 0" is one word whose value
 * holds spaces.
 */
#ifndef SPINDLE_CMDLINE_H
#define SPINDLE_CMDLINE_H

#include <spindle/types.h>

/*
 * Append the first n bytes of s (less, if s has a NUL before) to line, a
 * string in a buffer of size bytes, after a space if line is not empty.
 * Newlines, carriage returns and tabs become spaces (a file's lines are
 * words too).  What does not fit is cut.  Returns the new length, always
 * below size.
 */
size_t cmdline_append(char *line, size_t size, const char *s, size_t n);

/*
 * The word starting at or after args: copied into word (size bytes, cut
 * if longer, always terminated) without its quotes.  Returns where the
 * next call should start, or NULL when only spaces were left (word is
 * then "").  A word of nothing but quotes ("") comes back empty: callers
 * skip it.  As Linux's next_arg(), but the line is not modified.
 */
const char *next_arg(const char *args, char *word, size_t size);

/*
 * Does word set option key?  A key ending in '=' ("pattern=") matches a
 * word that starts with it, and *val is what follows; any other key must
 * be the whole word, and *val is "".
 */
bool cmdline_param_match(const char *key, const char *word, const char **val);

#endif /* SPINDLE_CMDLINE_H */
