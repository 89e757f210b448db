# The deadlock of lab 5 (labs/05-stacking/README.md), seen from GDB: with
# bio_order=fifo the writer (init) sleeps in mempool_alloc() for the one
# bio of dm-2's reserve, and that bio is the piece for dm-0 waiting on
# init's own current->bio_list[1].  The case stops where the hung-task
# detector is about to print init's backtrace, so the kernel's account
# and GDB's can be compared.
#
# scenario: labs/05-stacking/lab5-fifo-hangs.scn
# log: ^INFO: task init:1 blocked for more than 2 seconds\.$
# log: ^\s+wchan: mempool_alloc\+0x
#
# sp-ps: init is in D, where and on what it sleeps; khungtaskd is on the CPU
# expect: ^\s+PID S COMM\s+WCHAN\s+WAITS ON$
# expect: ^\s+1 D init\s+mempool_alloc\+0x[0-9a-f]+\s+mempool 0x[0-9a-f]+ \(0 of 1 in reserve\), bio_set dm-2$
# expect: ^>\s+\d+ R khungtaskd\s+\(on the CPU\)
# sp-bt init: the recursion-free submission, one generic_make_request frame
# expect: ^#\d+\s+0x[0-9a-f]+ mempool_alloc\+0x[0-9a-f]+\s+kernel/mm/mempool\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ bio_split\+0x[0-9a-f]+\s+block/bio\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ dm_make_request\+0x[0-9a-f]+\s+drivers/md/dm\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ generic_make_request\+0x[0-9a-f]+\s+block/blk-core\.c:\d+$
# expect: ^#\d+\s+0x[0-9a-f]+ submit_bio\+0x
# sp-bio-list init: the bio init waits for is on its own list
# expect: ^init:1 bio_list 0x[0-9a-f]+$
# expect: ^\s+bio_list\[0\] \(from the running make_request_fn\): 0 bio\(s\)$
# expect: ^\s+bio_list\[1\] \(waiting from before\): 1 bio\(s\)$
# expect: ^\s+bio 0x[0-9a-f]+  dm-0 W 0\+8 \[CLONED\]  from bio_set dm-2$
# sp-dev-stack dm-2: striped over two linear devices over two RAM disks
# expect: ^dm-2 \(dm "str", 32768 sectors\)$
# expect: ^  target 0: 0\+32768 striped$
# expect: ^    dm-0 \(dm "lin0", 16384 sectors\)$
# expect: ^      target 0: 0\+16384 linear$
# expect: ^        ram0 \(16384 sectors\): bio-based, make_request_fn brd_make_request$
# expect: ^    dm-1 \(dm "lin1", 16384 sectors\)$
# expect: ^        ram1 \(16384 sectors\): bio-based, make_request_fn brd_make_request$
# reject: Python Exception
# reject: ^Error
break sched_show_task
continue
sp-ps
sp-bt init
sp-bio-list init
sp-dev-stack dm-2
