// SPDX-License-Identifier: MIT
/*
 * The main() shared by every unit-test program.
 *
 * Each tests/unit/check_<name>.c builds one Check suite and returns it from
 * unit_suite(); unit.mk links it with this file into build/unit/check_<name>.
 * The program runs the suite, prints Check's summary line ("100%: Checks:
 * 42, Failures: 0, Errors: 0") and exits non-zero if anything failed, which
 * is what "make check" looks at.
 *
 * Check's environment variables apply: CK_VERBOSITY=verbose lists every
 * test, CK_RUN_CASE=Limits runs one test case, CK_FORK=no runs the tests in
 * this process (handy under gdb; the first failure or panic then ends it).
 */
#include <check.h>

Suite *unit_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(unit_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);	/* CK_VERBOSITY, "normal" by default */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
