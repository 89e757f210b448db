/* SPDX-License-Identifier: MIT */
/*
 * model.h for fs/io_uring_timeout.c compiled on the host against the
 * test tests/unit/check_io_uring_timeout.c.  The unit build forces it in
 * before the file's own includes (tests/unit/unit.mk), and the test
 * includes it too:
 *
 *   mod_timer, del_timer  the test's: it sees each timer armed, and can
 *                  play the tick -- take a timer off the pending list as
 *                  run_timers() does, then call its function -- at the
 *                  moment a race needs
 *   io_timeout_post       the test's: the CQEs a ring would post
 *   the file's functions  renamed model_*: every unit program also links
 *                  the kernel's own copy (fs/io_uring.c calls it)
 */
#ifndef URING_TIMEOUT_MODEL_H
#define URING_TIMEOUT_MODEL_H

#include <spindle/types.h>
#include <spindle/time.h>       /* first: its declarations keep the kernel's names */

struct timer_list;
void model_mod_timer(struct timer_list *t, u64 expires);
bool model_del_timer(struct timer_list *t);

#define mod_timer               model_mod_timer
#define del_timer               model_del_timer

#define io_timeout_post         model_io_timeout_post
#define io_timeouts_init        model_io_timeouts_init
#define io_timeout_prep         model_io_timeout_prep
#define io_timeout_remove_prep  model_io_timeout_remove_prep
#define io_timeout              model_io_timeout
#define io_timeout_remove       model_io_timeout_remove
#define io_flush_timeouts       model_io_flush_timeouts
#define io_timeout_cancel       model_io_timeout_cancel
#define io_kill_timeouts        model_io_kill_timeouts

#endif /* URING_TIMEOUT_MODEL_H */
