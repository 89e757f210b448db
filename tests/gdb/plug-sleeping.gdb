# A plugged request, the task that holds it, and the mutex it sleeps on:
# the last case of the plug suite (tests/kernel/plug_test.c,
# sleeping_plugger_does_not_deadlock) plugs a write of sector 4096 and
# then blocks on plug_lock, held by plug_holder, which waits for that
# write.  Four stops: schedule() flushing the first case's plug, which
# holds a callback; the holder starting, while the test waits for it on
# a completion; schedule() flushing the sleeping plugger's plug (the
# point of Linux commit 73c101011926); the driver receiving the request.
#
# scenario: tests/gdb/plug-sleeping.scn
# first stop, schedule() flushing the plug of the suite's first case: a
# callback (blk_check_plugged) on cb_list, no requests
# expect: ^(Thread \d+ hit )?Breakpoint 1, blk_flush_plug
# expect: ^ktest:\d+ plug 0x[0-9a-f]+: rq_count 0$
# expect: ^  mq_list: 0 request\(s\)$
# expect: ^  cb_list: 1 callback\(s\)$
# expect: ^    cb 0x[0-9a-f]+  note_flush\+0x0  data flushes$
# then plug_holder starting: the test waits for it on a completion
# expect: ^(Thread \d+ hit )?Breakpoint 2, plug_holder
# expect: ^\s+\d+ D ktest\s+__ktest_fn_plug_sleeping_plugger_does_not_deadlock\+0x[0-9a-f]+\s+completion 0x[0-9a-f]+ on ktest:\d+'s stack \(done=0\)$
# expect: ^>\s+\d+ R plug_holder\s+\(on the CPU\)
# sp-ps: the plugger, mid-schedule(), queued on the mutex; the holder
# expect: ^>\s+(\d+) D ktest\s+\(on the CPU\)\s+mutex plug_lock \(owner plug_holder:\d+\)$
# expect: ^\s+\d+ D plug_holder\s+plug_holder\+0x[0-9a-f]+\s+wait queue 0x[0-9a-f]+ on ktest:\d+'s stack$
# sp-plug: one request on the plug, not yet given a tag
# expect: ^ktest:\d+ plug 0x[0-9a-f]+: rq_count 1$
# expect: ^  mq_list: 1 request\(s\)$
# expect: ^    rq 0x[0-9a-f]+  tag -1  MQ_RQ_IDLE\s+W 4096\+8  1 bio\(s\)  nullb0$
# expect: ^      bio 0x[0-9a-f]+  nullb0 W 4096\+8 \[REMAPPED\]  from bio_set fs_bio_set$
# expect: ^  cb_list: 0 callback\(s\)$
# sp-rq nullb0: the queue sees the same request, on the plug
# expect: ^nullb0: queue 0x[0-9a-f]+, 128 requests \(127 free\), depth 64, tags in use 0x0$
# expect: ^  rq 0x[0-9a-f]+  tag -1  MQ_RQ_IDLE\s+W 4096\+8  1 bio\(s\)  plug of ktest:\d+$
# sp-elv nullb0: the default elevator holds nothing (a plug goes around it)
# expect: ^nullb0: elevator mq-deadline
# expect: ^  sort_list\[WRITE\]: 0 request\(s\)$
# at null_queue_rq: tag 0, with the driver
# expect: ^(Thread \d+ hit )?Breakpoint 4, null_queue_rq
# expect: ^nullb0: queue 0x[0-9a-f]+, 128 requests \(127 free\), depth 64, tags in use 0x1$
# expect: ^  rq 0x[0-9a-f]+  tag  0  MQ_RQ_IDLE\s+W 4096\+8  1 bio\(s\)  with the driver \(tag_rq\[0\]\)$
# expect: ^bio 0x[0-9a-f]+  nullb0 W 4096\+8 \[REMAPPED\]  from bio_set fs_bio_set  vcnt=1 end_io=seq_end_io\+0x0$
# sp-bt on the CPU: the request goes down from schedule(), in mutex_lock()
# expect: ^#0\s+0x[0-9a-f]+ null_queue_rq\+0x0\s+drivers/block/null_blk\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ blk_flush_plug\+0x[0-9a-f]+\s+block/blk-plug\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ schedule\+0x[0-9a-f]+\s+kernel/sched/core\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ mutex_lock\+0x[0-9a-f]+\s+kernel/sched/mutex\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ __ktest_fn_plug_sleeping_plugger_does_not_deadlock\+0x[0-9a-f]+ tests/kernel/plug_test\.c:\d+$
# expect: ^nullb0 \(\d+ sectors\): request-based, queue_rq null_queue_rq, elevator mq-deadline, depth 64$
# reject: Python Exception
# reject: ^Error
break *blk_flush_plug if $_streq($current()->comm, "ktest") && ($rsi & 0xff) != 0
continue
sp-plug
delete
break plug_holder
continue
sp-ps
delete
break *blk_mq_flush_plug_list if ($rsi & 0xff) != 0 && plug_lock.owner != 0
continue
sp-ps
sp-plug
sp-rq nullb0
sp-elv nullb0
delete
break *null_queue_rq
continue
sp-rq nullb0
sp-bio ((const struct blk_mq_queue_data *)$rsi)->rq->bio
sp-bt
sp-dev-stack nullb0
