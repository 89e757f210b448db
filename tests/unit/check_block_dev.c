#include <check.h>
Suite *unit_suite(void) { return suite_create("initramfs"); }
