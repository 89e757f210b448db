/* SPDX-License-Identifier: MIT */
/*
 * errseq.h - an error that each watcher sees once (Linux's errseq_t,
 * lib/errseq.c, Jeff Layton 2017).
 *
 * Write-back happens long after write() returned, so its errors must
 * wait somewhere for the next fsync().  One int per address_space is not
 * enough: with two fds open on a file, the first fsync() would "consume"
 * the error and the second would wrongly return 0.  errseq_t is an error
 * number plus a counter: each file samples it at open, and fsync()
 * reports an error only if the counter moved since that file last looked
 * -- so every fd open at the time of the error sees it, each exactly once.
 *
 *   bits  0..11  the last error (-errno, stored positive, < MAX_ERRNO)
 *   bit  12      SEEN: someone has sampled the current error
 *   bits 13..31  counter, bumped by errseq_set only when the error was
 *                SEEN (an unseen error need not be counted twice: no one
 *                could tell the difference)
 *
 * Interface: errseq_set(&eseq, -EIO) from write-back completion (does not
 * sleep, any context); since = errseq_sample(&eseq) at open;
 * errseq_check_and_advance(&eseq, &since) at fsync: the error once, or 0.
 */
#ifndef SPINDLE_ERRSEQ_H
#define SPINDLE_ERRSEQ_H

#include <spindle/types.h>

typedef u32 errseq_t;

#define ERRSEQ_SHIFT    12                      /* bits for the errno */
#define ERRSEQ_SEEN     (1u << ERRSEQ_SHIFT)
#define ERRSEQ_CTR_INC  (1u << (ERRSEQ_SHIFT + 1))
#define ERRSEQ_ERRNO    (ERRSEQ_SEEN - 1)

/* Record err (< 0; 0 is ignored); returns the new value. */
errseq_t errseq_set(errseq_t *eseq, int err);
/* A starting point: 0 if the current error was never seen, so a file
 * opened after an unreported error still gets it (Linux does the same). */
errseq_t errseq_sample(errseq_t *eseq);
/* -errno if *eseq changed since `since`, else 0.  Marks nothing. */
int errseq_check(errseq_t *eseq, errseq_t since);
/* As errseq_check, and move *since to now (marking the error SEEN). */
int errseq_check_and_advance(errseq_t *eseq, errseq_t *since);

#endif /* SPINDLE_ERRSEQ_H */
