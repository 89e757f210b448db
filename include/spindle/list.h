/* SPDX-License-Identifier: MIT */
/*
 * Intrusive circular doubly linked lists, as Linux's <linux/list.h>.
 *
 * A structure that wants to be on a list embeds a struct list_head; the
 * list itself is one more struct list_head, the head, that belongs to no
 * entry.  Nodes are linked in a circle through the head, so an empty list is
 * a head pointing at itself, and adding or removing never needs a special
 * case for the first or last entry.  list_entry() (container_of) gets from a
 * node back to the structure around it.  Nothing is ever allocated here.
 *
 * Interface: LIST_HEAD()/INIT_LIST_HEAD() a head; list_add() (push front,
 * a stack) or list_add_tail() (a queue); list_del()/list_move() to take an
 * entry off; list_for_each_entry() to walk, or the _safe variant when the
 * loop body removes the current entry.
 *
 * Rules a caller must not break: an entry's list_head is on at most one list
 * at a time, so never list_add() an entry that is already on one (list_del()
 * it first or use list_move()); and these helpers take no lock: whatever
 * protects the list must be held around every call and every walk.
 */
#ifndef SPINDLE_LIST_H
#define SPINDLE_LIST_H

#include <spindle/types.h>
#include <spindle/compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

/*
 * list_del() leaves these in a removed entry, so that using the entry
 * afterwards faults at once instead of quietly corrupting a list: on x86-64
 * they are non-canonical addresses, which no page table can map.
 */
#define LIST_POISON1 ((struct list_head *)0xdead000000000100ULL)
#define LIST_POISON2 ((struct list_head *)0xdead000000000122ULL)

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

/* Link @entry between two entries known to be adjacent. */
static inline void __list_add(struct list_head *entry,
			      struct list_head *prev, struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

/* Insert @entry right after @head: the list is then a stack (LIFO). */
static inline void list_add(struct list_head *entry, struct list_head *head)
{
	__list_add(entry, head, head->next);
}

/* Insert @entry right before @head, i.e. at the end: a queue (FIFO). */
static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	__list_add(entry, head->prev, head);
}

/* Join @prev and @next, dropping whatever was between them. */
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	prev->next = next;
}

static inline void __list_del_entry(struct list_head *entry)
{
	__list_del(entry->prev, entry->next);
}

/* Remove @entry from its list; the entry is poisoned, not usable as a list. */
static inline void list_del(struct list_head *entry)
{
	__list_del_entry(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

/* Remove @entry and make it an empty list of its own, safe to test or add. */
static inline void list_del_init(struct list_head *entry)
{
	__list_del_entry(entry);
	INIT_LIST_HEAD(entry);
}

/* Take @entry off its list and put it at the front of @head. */
static inline void list_move(struct list_head *entry, struct list_head *head)
{
	__list_del_entry(entry);
	list_add(entry, head);
}

/* Take @entry off its list and put it at the end of @head. */
static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	__list_del_entry(entry);
	list_add_tail(entry, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

/* Exactly one entry: not empty, and the first is also the last. */
static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

static inline bool list_is_first(const struct list_head *entry,
				 const struct list_head *head)
{
	return entry->prev == head;
}

static inline bool list_is_last(const struct list_head *entry,
				const struct list_head *head)
{
	return entry->next == head;
}

/* Insert all the entries of @list, in order, between @prev and @next. */
static inline void __list_splice(const struct list_head *list,
				 struct list_head *prev, struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/*
 * Move every entry of @list to the front (splice) or the end (splice_tail)
 * of @head, keeping their order, and leave @list empty.  O(1): only the
 * two ends are relinked, whatever the length.
 */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

/* The structure of @type whose @member is the list node @ptr. */
#define list_entry(ptr, type, member) container_of(ptr, type, member)

/* The first/last entry of a list that must not be empty. */
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)

/* The first entry, or NULL when the list is empty. */
#define list_first_entry_or_null(head, type, member) ({ \
	struct list_head *__head = (head); \
	struct list_head *__first = __head->next; \
	__first != __head ? list_entry(__first, type, member) : NULL; \
})

/* The entry after/before @pos, which is an entry (not a node) itself. */
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) \
	list_entry((pos)->member.prev, __typeof__(*(pos)), member)

/* Walk the nodes; the body must not remove @pos (see the _safe variant). */
#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

/*
 * The _safe walks read the next node into @n before running the body, so
 * the body may remove (and free) the current one.  They do not protect
 * against removing any other entry.
 */
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; pos != (head); \
	     pos = n, n = pos->next)

/*
 * Walk the entries.  The loop ends when @pos's node is the head itself:
 * @pos is then a bogus "entry" around the head and must not be used after
 * the loop unless the body broke out of it.
 */
#define list_for_each_entry(pos, head, member) \
	for (pos = list_first_entry(head, __typeof__(*(pos)), member); \
	     &pos->member != (head); \
	     pos = list_next_entry(pos, member))

#define list_for_each_entry_reverse(pos, head, member) \
	for (pos = list_last_entry(head, __typeof__(*(pos)), member); \
	     &pos->member != (head); \
	     pos = list_prev_entry(pos, member))

#define list_for_each_entry_safe(pos, n, head, member) \
	for (pos = list_first_entry(head, __typeof__(*(pos)), member), \
	     n = list_next_entry(pos, member); \
	     &pos->member != (head); \
	     pos = n, n = list_next_entry(n, member))

#endif /* SPINDLE_LIST_H */
