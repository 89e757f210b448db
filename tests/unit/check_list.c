// SPDX-License-Identifier: MIT
/*
 * Unit tests for include/spindle/list.h.
 *
 * The fixture provides ten items (values 0-9) and two empty lists, a and b.
 * "Core" runs a table of scripts: each is a sequence of list operations on
 * those items and the expected contents of a and b afterwards, written as
 * strings of values ("312" = 3, then 1, then 2).  After every script both
 * lists are also walked backwards and checked for broken links, so each row
 * tests the prev pointers too.  "Limits" covers the edge cases: empty and
 * one-entry lists, removal during a walk, poisoned entries.
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/list.h>

struct item {
	int val;
	struct list_head node;
};

#define NITEMS 10

static struct item items[NITEMS];
static LIST_HEAD(a);
static LIST_HEAD(b);

static void setup(void)
{
	for (int i = 0; i < NITEMS; i++) {
		items[i].val = i;
		INIT_LIST_HEAD(&items[i].node);
	}
	INIT_LIST_HEAD(&a);
	INIT_LIST_HEAD(&b);
}

/*
 * Check that head's next and prev links mirror each other, then write its
 * values into out as a string of digits.  Returns false on a broken link.
 */
static bool list_to_string(struct list_head *head, char *out, size_t size)
{
	struct item *it;
	size_t n = 0;
	int steps = 0;

	list_for_each_entry(it, head, node) {
		if (it->node.next->prev != &it->node ||
		    it->node.prev->next != &it->node || ++steps > NITEMS ||
		    n + 1 >= size)
			return false;
		out[n++] = (char)('0' + it->val);
	}
	out[n] = '\0';

	/* Backwards must give the same values reversed. */
	list_for_each_entry_reverse(it, head, node) {
		if (n == 0 || out[--n] != '0' + it->val)
			return false;
	}
	return n == 0 && head->next->prev == head && head->prev->next == head;
}

/*
 * A script is pairs of characters, an operation and an item number:
 *   a<n> list_add to a          t<n> list_add_tail to a
 *   b<n> list_add_tail to b     d<n> list_del_init
 *   m<n> list_move to a         M<n> list_move_tail to a
 *   s-   list_splice_init(b, a) S-   list_splice_tail_init(b, a)
 *   B<n> list_move_tail to b
 */
static const struct {
	const char *script;
	const char *want_a, *want_b;
} script_cases[] = {
	{ "", "", "" },
	{ "a1a2a3", "321", "" },		/* list_add: a stack */
	{ "t1t2t3", "123", "" },		/* list_add_tail: a queue */
	{ "t1a2t3a4", "4213", "" },
	{ "t1t2t3d2", "13", "" },		/* delete from the middle */
	{ "t1t2t3d1", "23", "" },		/* ... the front */
	{ "t1t2t3d3", "12", "" },		/* ... the back */
	{ "t1d1", "", "" },			/* ... the only entry */
	{ "t1t2t3d1d2d3", "", "" },
	{ "t1t2t3d2t2", "132", "" },		/* re-add after del_init */
	{ "t1t2t3m3", "312", "" },		/* move to the front */
	{ "t1t2t3M1", "231", "" },		/* move to the back */
	{ "t1t2t3m1", "123", "" },		/* already first */
	{ "t1t2t3M3", "123", "" },		/* already last */
	{ "t1m1", "1", "" },
	{ "t1t2b3b4", "12", "34" },
	{ "t1t2b3b4s-", "3412", "" },		/* splice: b before a's entries */
	{ "t1t2b3b4S-", "1234", "" },		/* splice_tail: after */
	{ "b3b4s-", "34", "" },			/* into an empty list */
	{ "b3b4S-", "34", "" },
	{ "t1t2s-", "12", "" },			/* an empty b changes nothing */
	{ "t1t2S-", "12", "" },
	{ "s-S-", "", "" },
	{ "t1t2b3s-t5", "3125", "" },		/* a still sound after splicing */
	{ "t1t2b3S-b4", "123", "4" },		/* b reusable after splice_init */
	{ "t1t2t3B2", "13", "2" },		/* move between lists */
	{ "t1b2b3m3B1", "3", "21" },
};

static void run_script(const char *script)
{
	for (const char *p = script; p[0] && p[1]; p += 2) {
		struct list_head *node = p[1] == '-' ? NULL : &items[p[1] - '0'].node;

		switch (p[0]) {
		case 'a': list_add(node, &a); break;
		case 't': list_add_tail(node, &a); break;
		case 'b': list_add_tail(node, &b); break;
		case 'd': list_del_init(node); break;
		case 'm': list_move(node, &a); break;
		case 'M': list_move_tail(node, &a); break;
		case 'B': list_move_tail(node, &b); break;
		case 's': list_splice_init(&b, &a); break;
		case 'S': list_splice_tail_init(&b, &a); break;
		default: ck_abort_msg("bad script op '%c'", p[0]);
		}
	}
}

START_TEST(test_script_table)
{
	char got_a[NITEMS + 1], got_b[NITEMS + 1];

	run_script(script_cases[_i].script);
	ck_assert_msg(list_to_string(&a, got_a, sizeof(got_a)), "list a is broken");
	ck_assert_msg(list_to_string(&b, got_b, sizeof(got_b)), "list b is broken");
	ck_assert_str_eq(got_a, script_cases[_i].want_a);
	ck_assert_str_eq(got_b, script_cases[_i].want_b);
	ck_assert(list_empty(&a) == (script_cases[_i].want_a[0] == '\0'));
	ck_assert(list_empty(&b) == (script_cases[_i].want_b[0] == '\0'));
}
END_TEST

START_TEST(test_entries)
{
	struct item *first, *last;

	run_script("t3t4t5");
	first = list_first_entry(&a, struct item, node);
	last = list_last_entry(&a, struct item, node);
	ck_assert_int_eq(first->val, 3);
	ck_assert_int_eq(last->val, 5);
	ck_assert_int_eq(list_next_entry(first, node)->val, 4);
	ck_assert_int_eq(list_prev_entry(last, node)->val, 4);
	ck_assert_ptr_eq(list_first_entry_or_null(&a, struct item, node), first);
	ck_assert_ptr_eq(list_entry(&items[4].node, struct item, node), &items[4]);
	ck_assert(list_is_first(&first->node, &a));
	ck_assert(list_is_last(&last->node, &a));
	ck_assert(!list_is_last(&first->node, &a));
}
END_TEST

/* list_for_each / list_for_each_safe visit the nodes in order. */
START_TEST(test_node_walks)
{
	struct list_head *pos, *n;
	int seen = 0;

	run_script("t1t2t3");
	list_for_each(pos, &a)
		ck_assert_int_eq(list_entry(pos, struct item, node)->val, ++seen);
	ck_assert_int_eq(seen, 3);

	/* The _safe walk survives deleting every node it visits. */
	list_for_each_safe(pos, n, &a)
		list_del(pos);
	ck_assert(list_empty(&a));
}
END_TEST

/* Limits ---------------------------------------------------------------- */

START_TEST(test_empty_list)
{
	struct list_head *pos;
	struct item *it;
	int visits = 0;

	ck_assert(list_empty(&a));
	ck_assert(!list_is_singular(&a));
	ck_assert_ptr_null(list_first_entry_or_null(&a, struct item, node));
	list_for_each(pos, &a)
		visits++;
	list_for_each_entry(it, &a, node)
		visits++;
	list_for_each_entry_reverse(it, &a, node)
		visits++;
	ck_assert_int_eq(visits, 0);

	/* A statically initialised head is the same empty list. */
	{
		LIST_HEAD(fresh);

		ck_assert(list_empty(&fresh));
		ck_assert_ptr_eq(fresh.next, &fresh);
		ck_assert_ptr_eq(fresh.prev, &fresh);
	}
}
END_TEST

START_TEST(test_singular)
{
	run_script("t7");
	ck_assert(list_is_singular(&a));
	ck_assert(list_is_first(&items[7].node, &a) && list_is_last(&items[7].node, &a));
	run_script("t8");
	ck_assert(!list_is_singular(&a));
	run_script("d7");
	ck_assert(list_is_singular(&a));
}
END_TEST

/* list_del() poisons the entry; list_del_init() makes it an empty list. */
START_TEST(test_del_poison)
{
	run_script("t1t2t3");
	list_del(&items[2].node);
	ck_assert_ptr_eq(items[2].node.next, LIST_POISON1);
	ck_assert_ptr_eq(items[2].node.prev, LIST_POISON2);

	list_del_init(&items[3].node);
	ck_assert(list_empty(&items[3].node));
	list_del_init(&items[3].node);	/* deleting it again is harmless */
	ck_assert(list_empty(&items[3].node));
	ck_assert(list_is_singular(&a));
}
END_TEST

/* Deleting the current entry in list_for_each_entry_safe, here every even one. */
START_TEST(test_safe_delete_during_walk)
{
	struct item *it, *next;
	char got[NITEMS + 1];

	run_script("t0t1t2t3t4t5t6t7t8t9");
	list_for_each_entry_safe(it, next, &a, node) {
		if (it->val % 2 == 0)
			list_del(&it->node);
	}
	ck_assert(list_to_string(&a, got, sizeof(got)));
	ck_assert_str_eq(got, "13579");

	list_for_each_entry_safe(it, next, &a, node)
		list_del_init(&it->node);
	ck_assert(list_empty(&a));
}
END_TEST

/* A break leaves the cursor on the entry found (a common search idiom). */
START_TEST(test_search_break)
{
	struct item *it;

	run_script("t4t5t6");
	list_for_each_entry(it, &a, node) {
		if (it->val == 5)
			break;
	}
	ck_assert_ptr_eq(it, &items[5]);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("List");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, NULL);
	tcase_add_loop_test(core, test_script_table, 0, ARRAY_SIZE(script_cases));
	tcase_add_test(core, test_entries);
	tcase_add_test(core, test_node_walks);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, NULL);
	tcase_add_test(limits, test_empty_list);
	tcase_add_test(limits, test_singular);
	tcase_add_test(limits, test_del_poison);
	tcase_add_test(limits, test_safe_delete_during_walk);
	tcase_add_test(limits, test_search_break);
	suite_add_tcase(s, limits);
	return s;
}
