// SPDX-License-Identifier: MIT
/*
 * exec_template - exits 0 and does nothing else: the smallest program
 * Spindle's link script lays out (ET_EXEC, two PT_LOAD segments), whose
 * headers hostile_exec copies and damages one field at a time.
 */
int main(void)
{
	return 0;
}
