# The elevator's sorted list in the middle of a sweep: 32 random writes
# queued on a disk that takes one at a time, stopped at the 41st call of
# cscan's dispatch.  Every queued request is in cscan's one sorted list,
# in rising sector order, none with a tag; the runner checks the order
# from the printed sectors (a sorted: block) itself.  30 or 31 of the 32
# wait there, as bench's refill is one behind or not: null_blk's 2 ms
# completion ends on a tick (31 at HZ 1000, 30 at HZ 250).
#
# scenario: tests/gdb/elevator-cscan.scn
# expect: ^(Thread \d+ hit )?Breakpoint 1, cscan_dispatch_request
# expect: ^nullb0: elevator cscan, head_pos \d+$
# expect: ^  dispatch \(at_head\): 0 request\(s\)$
# expect: ^  sorted: 3[01] request\(s\)$
# expect: ^    rq 0x[0-9a-f]+  tag -1  MQ_RQ_IDLE\s+W \d+\+8  1 bio\(s\)$
# expect: ^nullb0: queue 0x[0-9a-f]+, 128 requests \(9[78] free\), depth 1, tags in use 0x0$
# expect: ^  rq 0x[0-9a-f]+  tag -1  MQ_RQ_IDLE\s+W \d+\+8  1 bio\(s\)  elevator cscan$
# sorted: sorted
# reject: !! not in sector order
# reject: Python Exception
# reject: ^Error
break cscan_dispatch_request
ignore 1 40
continue
sp-elv nullb0
sp-rq nullb0
