// SPDX-License-Identifier: MIT
/*
 * malloc.c - a small first-fit allocator.
 *
 * Small requests come from the heap that brk(12) grows above the
 * program's data; each block carries a header with its size, and freed
 * blocks go on one address-ordered free list, where neighbours are merged
 * so the heap does not crumble.  Requests of MMAP_THRESHOLD or more get
 * their own anonymous mmap(9) and are unmapped on free.  If brk cannot
 * grow (a kernel without it, or out of room) the heap grows by mmap
 * chunks instead.
 *
 * Not thread-safe: Spindle's user programs are single-threaded.
 */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <sys/mman.h>

#define ALIGN           16
#define MMAP_THRESHOLD  (128 * 1024)
#define HEAP_GROW       (64 * 1024)     /* grow the heap at least this much */

struct block {
	size_t size;                    /* of the whole block, header included */
	size_t mapped;                  /* 1: its own mmap, unmapped on free */
	struct block *next;             /* on the free list only */
	size_t pad;                     /* keeps the payload 16-byte aligned */
};

static struct block *free_list;        /* sorted by address */
static char *heap_end;                 /* the current break, once known */

void *__brk(void *addr);

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/* more memory for the heap: brk if it works, else an mmap'ed chunk */
static struct block *heap_grow(size_t need)
{
	size_t len = round_up(need > HEAP_GROW ? need : HEAP_GROW, 4096);
	struct block *b;

	if (!heap_end)
		heap_end = __brk(NULL);
	if (heap_end && __brk(heap_end + len) == heap_end + len) {
		b = (struct block *)heap_end;
		heap_end += len;
	} else {
		b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return NULL;
	}
	b->size = len;
	b->mapped = 0;
	return b;
}

/* put b back on the list in address order, merging with touching neighbours */
static void free_list_insert(struct block *b)
{
	struct block **pp = &free_list, *prev = NULL;

	while (*pp && *pp < b) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	b->next = *pp;
	*pp = b;
	if (b->next && (char *)b + b->size == (char *)b->next) {
		b->size += b->next->size;
		b->next = b->next->next;
	}
	if (prev && (char *)prev + prev->size == (char *)b) {
		prev->size += b->size;
		prev->next = b->next;
	}
}

void *malloc(size_t size)
{
	size_t need = round_up(size + sizeof(struct block), ALIGN);
	struct block **pp, *b;

	if (size > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	if (need >= MMAP_THRESHOLD) {
		size_t len = round_up(need, 4096);

		b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED) {
			errno = ENOMEM;
			return NULL;
		}
		b->size = len;
		b->mapped = 1;
		return b + 1;
	}
	for (;;) {
		for (pp = &free_list; *pp; pp = &(*pp)->next) {
			b = *pp;
			if (b->size < need)
				continue;
			if (b->size - need >= sizeof(struct block) + ALIGN) {
				/* split: the tail stays free */
				struct block *rest = (struct block *)((char *)b + need);

				rest->size = b->size - need;
				rest->mapped = 0;
				rest->next = b->next;
				*pp = rest;
				b->size = need;
			} else {
				*pp = b->next;
			}
			return b + 1;
		}
		b = heap_grow(need);
		if (!b) {
			errno = ENOMEM;
			return NULL;
		}
		free_list_insert(b);
	}
}

void free(void *p)
{
	struct block *b;

	if (!p)
		return;
	b = (struct block *)p - 1;
	if (b->mapped)
		munmap(b, b->size);
	else
		free_list_insert(b);
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *p, size_t size)
{
	struct block *b;
	size_t have;
	void *q;

	if (!p)
		return malloc(size);
	if (!size) {
		free(p);
		return NULL;
	}
	b = (struct block *)p - 1;
	have = b->size - sizeof(struct block);
	if (size <= have)
		return p;
	q = malloc(size);
	if (q) {
		memcpy(q, p, have);
		free(p);
	}
	return q;
}
