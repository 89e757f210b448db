// SPDX-License-Identifier: MIT
/*
 * errseq.c - errors reported once to each watcher (include/spindle/errseq.h
 * explains the encoding).  Lock-free: a compare-and-swap loop, because
 * errseq_set runs in bio completion (interrupt context) while fsync()
 * reads the same word from a task.
 */
#include <spindle/errseq.h>
#include <spindle/errno.h>

/* The error an errseq_t holds, as -errno. */
static int errseq_errno(errseq_t e)
{
	return -(int)(e & ERRSEQ_ERRNO);
}

static errseq_t errseq_load(errseq_t *eseq)
{
	return __atomic_load_n(eseq, __ATOMIC_ACQUIRE);
}

errseq_t errseq_set(errseq_t *eseq, int err)
{
	errseq_t old = errseq_load(eseq), new;

	if (err >= 0 || -err >= (int)ERRSEQ_SEEN)
		return old;                     /* not an errno: nothing to record */
	do {
		new = (old & ~(ERRSEQ_ERRNO | ERRSEQ_SEEN)) | (errseq_t)-err;
		/* count only if the previous error was seen: an unseen one is
		 * still pending for every watcher, whatever its number */
		if (old & ERRSEQ_SEEN)
			new += ERRSEQ_CTR_INC;
		if (new == old)
			return old;
	} while (!__atomic_compare_exchange_n(eseq, &old, new, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return new;
}

errseq_t errseq_sample(errseq_t *eseq)
{
	errseq_t old = errseq_load(eseq);

	return (old & ERRSEQ_SEEN) ? old : 0;
}

int errseq_check(errseq_t *eseq, errseq_t since)
{
	errseq_t cur = errseq_load(eseq);

	if ((cur | ERRSEQ_SEEN) == (since | ERRSEQ_SEEN))
		return 0;
	return errseq_errno(cur);
}

int errseq_check_and_advance(errseq_t *eseq, errseq_t *since)
{
	errseq_t old = errseq_load(eseq), new;

	if (old == *since)
		return 0;
	/* mark it seen, so the next errseq_set bumps the counter */
	do {
		new = old | ERRSEQ_SEEN;
		if (new == old)
			break;
	} while (!__atomic_compare_exchange_n(eseq, &old, new, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	if ((new | ERRSEQ_SEEN) == (*since | ERRSEQ_SEEN)) {
		*since = new;
		return 0;
	}
	*since = new;
	return errseq_errno(new);
}
