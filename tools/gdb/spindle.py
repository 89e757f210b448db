# SPDX-License-Identifier: MIT
# spindle.py - GDB commands that read Spindle's block-layer structures.
#
# Where it sits: loaded into GDB by the repository's .gdbinit (or
# `make qemu-gdb`'s explicit -x), after the kernel's symbols
# (build/spindle.elf).  It only reads guest memory through GDB -- it never
# calls a kernel function or writes anything -- so it works on a guest
# halted anywhere, even one that is deadlocked or has crashed.
#
# Commands (`help sp-<name>` says more; `sp-help` lists them):
#   sp-ps              every task: pid, state, name, wait channel, and what
#                      it waits on (a wait queue, a mutex, a completion)
#   sp-bt PID          a sleeping task's kernel backtrace, by frame pointers
#   sp-bio-list [PID]  the task's current->bio_list[0] and [1]
#   sp-plug [PID]      the task's current->plug: mq_list and cb_list
#   sp-rq DISK         the request queue's requests: tag, state, where
#   sp-bio EXPR        a bio chain (bi_next): sector, size, op, flags
#   sp-elv DISK        the elevator's lists (cscan, mq-deadline, none)
#   sp-dev-stack DISK  the device stack from DISK (e.g. dm-2) down to disks
# DISK is a disk's name ("sda", "dm-2", "nullb0") or an expression that
# evaluates to a struct gendisk *, struct request_queue * or
# struct block_device *.
#
# The kernel does not record what a sleeping task waits for; it records
# where it slept (its saved stack pointer, task_struct.ksp) and, for the
# sleep primitives, a waiter on the task's own stack linked into the
# object's list (DEFINE_WAIT's struct wait_queue_entry in a
# wait_queue_head, struct mutex_waiter in mutex.wait_list).  sp-ps walks
# the frame pointers as kernel/sched/debug.c does, and finds those waiters
# on the live part of the stack; see waits_on() below.
#
# The structures' field names are read from the kernel's debug
# information, so a renamed field fails loudly here; the few constants
# that are #defines (flags, task states) and the kernel's list of sleep
# primitives are repeated below with the file they come from, and
# tests/gdb/run.py checks them against those files.

import gdb

# include/spindle/sched.h
TASK_RUNNING = 0
TASK_INTERRUPTIBLE = 1
TASK_UNINTERRUPTIBLE = 2
TASK_DEAD = 64
EXIT_ZOMBIE = 16
THREAD_SIZE = 16384

# include/spindle/blk_types.h: bi_opf's flags above the operation, and
# bi_flags
REQ_OP_MASK = 0xff
REQ_FLAGS = [(1 << 8, "SYNC"), (1 << 9, "FUA"), (1 << 10, "PREFLUSH"),
             (1 << 11, "NOWAIT"), (1 << 12, "NOMERGE")]
BIO_FLAGS = [(1 << 0, "CHAIN"), (1 << 1, "CLONED"), (1 << 2, "REMAPPED")]
OP_LETTERS = {0: "R", 1: "W", 2: "F", 3: "D"}     # as block/blk-core.c prints

# kernel/sched/debug.c: sched_function_prefixes[], the frames that belong
# to the act of sleeping rather than to its reason.  Keep the two in step.
SCHED_PREFIXES = ("__switch_to", "__schedule", "schedule", "io_schedule",
                  "yield", "preempt_schedule", "irq_exit_preempt",
                  "wait_for_completion", "do_wait_for_common", "mutex_lock", "msleep")

MAX_DEPTH = 32          # frames, as the kernel's own walk
MAX_LIST = 4096         # entries: a corrupt list must not loop forever


# --- reading memory ----------------------------------------------------------

def T(name):
    """A type by its C name: "struct bio", "struct bio *"."""
    ptr = name.endswith("*")
    base = gdb.lookup_type(name.rstrip(" *"))
    return base.pointer() if ptr else base


def ulong_t():
    return gdb.lookup_type("unsigned long")


def read_ulong(addr):
    """The 8-byte word at addr, or None if it cannot be read."""
    try:
        return int(gdb.Value(addr).cast(ulong_t().pointer()).dereference())
    except gdb.MemoryError:
        return None


def offsetof(typename, field):
    t = T(typename)
    for f in t.fields():
        if f.name == field:
            return f.bitpos // 8
    raise gdb.GdbError("%s has no field %s" % (typename, field))


def container_of(ptr, typename, field):
    """The struct typename * whose member field is at address ptr."""
    addr = int(ptr) - offsetof(typename, field)
    return gdb.Value(addr).cast(T(typename).pointer())


def list_for_each_entry(head, typename, field):
    """Yield each struct typename * on the list_head at address head."""
    head = int(head)
    lh = T("struct list_head").pointer()
    node = int(gdb.Value(head).cast(lh).dereference()["next"])
    n = 0
    while node != head:
        if node == 0 or n >= MAX_LIST:
            raise gdb.GdbError("list at %#x is broken (NULL or > %d entries)"
                               % (head, MAX_LIST))
        yield container_of(node, typename, field)
        node = int(gdb.Value(node).cast(lh).dereference()["next"])
        n += 1


def cstr(value):
    try:
        return value.string()
    except (gdb.MemoryError, UnicodeDecodeError):
        return "?"


def symbolise(pc):
    """'name+0xoff' for a code address, as the kernel's ksym_snprint."""
    out = gdb.execute("info symbol %#x" % pc, to_string=True).strip()
    if out.startswith("No symbol"):
        return "%#x" % pc
    name = out.split(" in section")[0]
    if " + " in name:
        sym, off = name.split(" + ")
        return "%s+%#x" % (sym, int(off))
    return name + "+0x0"


def data_symbol(addr):
    """The variable addr lies in ("plug_lock", "fs_bio_set+16"), or None
    for memory that no symbol names (the heap, a stack)."""
    out = gdb.execute("info symbol %#x" % addr, to_string=True).strip()
    if out.startswith("No symbol"):
        return None
    name = out.split(" in section")[0]
    return name.replace(" + ", "+")


# --- tasks -------------------------------------------------------------------

def this_cpu_offset():
    """The per-CPU offset (include/spindle/percpu.h) of the CPU GDB has
    selected -- QEMU shows each CPU as a thread.  It is the CPU's GS base
    while it runs the kernel; in user mode SWAPGS has put it in the other
    GS base register (kernel/arch/x86/entry.S).  0 before the registers
    say anything: the per-CPU section itself, as early in boot."""
    try:
        reg = "$k_gs_base" if int(gdb.parse_and_eval("$cs")) & 3 else "$gs_base"
        return int(gdb.parse_and_eval(reg)) & (2 ** 64 - 1)
    except gdb.error:
        return 0


def this_cpu_ptr(name, type_name):
    """&name in the selected CPU's copy of the per-CPU section."""
    addr = (int(gdb.parse_and_eval("&" + name)) + this_cpu_offset()) & (2 ** 64 - 1)
    return gdb.Value(addr).cast(T(type_name).pointer())


def current_task():
    """The task on the selected CPU (the kernel's current)."""
    return this_cpu_ptr("current_task", "struct task_struct *").dereference()


class Current(gdb.Function):
    """$current(): the task on the selected CPU, as the kernel's current
(Linux's $lx_current()).  current_task alone names the per-CPU
section's own copy, not any CPU's: e.g.
    break blk_flush_plug if $_streq($current()->comm, "ktest")"""

    def __init__(self):
        super().__init__("current")

    def invoke(self):
        return current_task()


def all_tasks():
    return list(list_for_each_entry(gdb.parse_and_eval("&task_list"),
                                    "struct task_struct", "tasks"))


def find_task(arg):
    """A task by pid, by name, or by an expression; none: current."""
    arg = arg.strip()
    if not arg:
        return current_task()
    for p in all_tasks():
        if arg == str(int(p["pid"])) or arg == cstr(p["comm"]):
            return p
    try:
        v = gdb.parse_and_eval(arg)
    except gdb.error:
        raise gdb.GdbError("no task %s (a pid, a name, or a task_struct *)" % arg)
    if v.type.code == gdb.TYPE_CODE_PTR:
        return v.cast(T("struct task_struct").pointer())
    raise gdb.GdbError("no task %s" % arg)


def state_letter(p):
    """ps's letters: R running or runnable, S interruptible sleep, D
    uninterruptible sleep, Z zombie, X dead."""
    if int(p["exit_state"]) & EXIT_ZOMBIE:
        return "Z"
    s = int(p["state"])
    if s == TASK_RUNNING:
        return "R"
    if s & TASK_DEAD:
        return "X"
    if s & TASK_UNINTERRUPTIBLE:
        return "D"
    if s & TASK_INTERRUPTIBLE:
        return "S"
    return "?"


def stack_bounds(p):
    bottom = int(p["stack"])
    return bottom, bottom + THREAD_SIZE


def live_sp(p):
    """Where p's stack is in use from: the saved ksp, or for the task on
    the CPU the stack pointer register."""
    if int(p) == int(current_task()):
        return int(gdb.parse_and_eval("$rsp"))
    return int(p["ksp"])


def stack_trace(p):
    """p's return addresses, innermost first: kernel/sched/debug.c's walk
    of the frame-pointer chain from the frame __switch_to leaves at ksp
    (six pushed registers, rbp last, then the return address), with the
    same checks against a corrupt chain.  For the task on the CPU, its pc
    first, then the return addresses of GDB's own unwinder."""
    if not int(p["stack"]):
        return []
    bottom, top = stack_bounds(p)
    if int(p) == int(current_task()):
        # The debug info's frame tables are right even at a breakpoint on
        # a function's first instruction, before its prologue has pushed
        # rbp, where a frame-pointer walk would skip the caller.
        # Inlined calls share their caller's pc: one entry per real frame,
        # as the kernel's walk; it ends where the stack or the code does
        # (GDB would go on past ret_from_kthread into stale words).
        trace, frame = [], gdb.newest_frame()
        while frame is not None and len(trace) < MAX_DEPTH:
            sp = int(frame.read_register("rsp"))
            if not bottom <= sp < top or not data_symbol(int(frame.pc())):
                break
            if frame.type() != gdb.INLINE_FRAME:
                trace.append(int(frame.pc()))
            frame = frame.older()
        return trace
    ksp = int(p["ksp"])
    if ksp < bottom or ksp > top - 7 * 8 or ksp & 7:
        return []
    trace = [read_ulong(ksp + 6 * 8)]
    rbp = read_ulong(ksp + 5 * 8)
    prev = ksp
    while len(trace) < MAX_DEPTH:
        if rbp is None or rbp <= prev or rbp & 7 or rbp > top - 16:
            break
        ret = read_ulong(rbp + 8)
        if not ret:
            break
        trace.append(ret)
        prev, rbp = rbp, read_ulong(rbp)
    return trace


def wchan(p, trace=None):
    """The first return address outside the scheduler and the sleep
    primitives (get_wchan()), or None for a runnable task."""
    if int(p["state"]) == TASK_RUNNING and int(p) != int(current_task()):
        return None
    for pc in trace if trace is not None else stack_trace(p):
        if not symbolise(pc).startswith(SCHED_PREFIXES):
            return pc
    return None


def waiters_on_stack(p):
    """The waiters linked from p's live stack: (kind, list node address).

    A struct wait_queue_entry is { task, entry }: a word equal to p with a
    linked list_head just above it.  A struct mutex_waiter is { list, task }:
    a word equal to p with a linked list_head just below it.  "Linked"
    means node->next->prev == node and node->next != node, so the stale
    copy an earlier, finished wait left on the stack (list_del_init makes
    it point at itself) does not count."""
    found = []
    bottom, top = stack_bounds(p)
    sp = max(live_sp(p), bottom)
    me = int(p)
    wqe = offsetof("struct wait_queue_entry", "entry") - \
        offsetof("struct wait_queue_entry", "task")
    mw = offsetof("struct mutex_waiter", "list") - \
        offsetof("struct mutex_waiter", "task")
    inf = gdb.selected_inferior()
    words = inf.read_memory(sp & ~7, top - (sp & ~7)).tobytes()
    for i in range(0, len(words) - 7, 8):
        if int.from_bytes(words[i:i + 8], "little") != me:
            continue
        addr = (sp & ~7) + i
        for kind, node in (("wait", addr + wqe), ("mutex", addr + mw)):
            nxt = read_ulong(node)
            if nxt and nxt != node and read_ulong(nxt + 8) == node:
                found.append((kind, node))
    return found


def list_head_of(node, is_member):
    """Walk the circular list from node to the one element that is not a
    waiter (is_member false): the list's head, in the object waited on."""
    cur = read_ulong(node)
    for _ in range(MAX_LIST):
        if cur is None or cur == node:
            return None
        if not is_member(cur):
            return cur
        cur = read_ulong(cur)
    return None


def name_of(addr):
    """An object's address as a reader can place it: the variable it is
    in, or which task's stack it is on (a completion or wait queue
    declared in a function), or just the address (allocated memory)."""
    sym = data_symbol(addr)
    if sym:
        return sym
    for t in all_tasks():
        bottom, top = stack_bounds(t)
        if bottom and bottom <= addr < top:
            return "%#x on %s:%d's stack" % (addr, cstr(t["comm"]), int(t["pid"]))
    return "%#x" % addr


def describe_wait_head(head, trace):
    """Name the wait_queue_head at address head as well as memory allows."""
    wq = head - offsetof("struct wait_queue_head", "head")
    funcs = [symbolise(pc) for pc in trace]
    if any(f.startswith("wait_for_completion") for f in funcs):
        c = wq - offsetof("struct completion", "wait")
        done = int(gdb.Value(c).cast(T("struct completion").pointer())["done"])
        return "completion %s (done=%d)" % (name_of(c), done)
    if any(f.startswith("mempool_alloc") for f in funcs):
        pool = wq - offsetof("struct mempool", "wait")
        mp = gdb.Value(pool).cast(T("struct mempool").pointer())
        return "mempool %s (%d of %d in reserve)%s" % (
            name_of(pool), int(mp["curr_nr"]), int(mp["min_nr"]),
            bio_set_of_pool(pool))
    return "wait queue %s" % name_of(wq)


def bio_set_of_pool(pool):
    """', bio_set NAME' if pool is the bio pool of a bio_set we can find."""
    for bs in known_bio_sets():
        if int(bs) + offsetof("struct bio_set", "pool") == pool:
            return ", bio_set %s" % cstr(bs["name"])
    return ""


def known_bio_sets():
    """The bio_sets reachable from globals: fs_bio_set, every mapped
    device's, every queue's bio_split."""
    sets = [gdb.parse_and_eval("&fs_bio_set")]
    for md in mapped_devices():
        sets.append(md["bs"].address)
    for disk in all_disks():
        q = disk["queue"]
        if int(q):
            sets.append(q["bio_split"].address)
    return sets


def waits_on(p, trace):
    """What p sleeps on, as text, or "" when nothing on its stack says."""
    tasks = set(int(t) for t in all_tasks())
    wq_task = offsetof("struct wait_queue_entry", "task") - \
        offsetof("struct wait_queue_entry", "entry")
    mw_task = offsetof("struct mutex_waiter", "task") - \
        offsetof("struct mutex_waiter", "list")
    what = []
    for kind, node in waiters_on_stack(p):
        if kind == "wait":
            head = list_head_of(node, lambda n: read_ulong(n + wq_task) in tasks)
            if head is not None:
                what.append(describe_wait_head(head, trace))
        else:
            head = list_head_of(node, lambda n: read_ulong(n + mw_task) in tasks)
            if head is None:
                continue
            m = container_of(head, "struct mutex", "wait_list")
            # the owner word: the task's address, flags in the low bits
            owner_addr = int(m["owner"]) & ~0x7
            owner = gdb.Value(owner_addr).cast(
                gdb.lookup_type("struct task_struct").pointer())
            who = "%s:%d" % (cstr(owner["comm"]), int(owner["pid"])) \
                if owner_addr else "nobody"
            name = data_symbol(int(m)) or cstr(m["name"])
            what.append("mutex %s (owner %s)" % (name, who))
    return "; ".join(what)


class SpHelp(gdb.Command):
    """List Spindle's GDB commands (tools/gdb/spindle.py)."""

    def __init__(self):
        super().__init__("sp-help", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for name in sorted(COMMANDS):
            doc = (COMMANDS[name].__doc__ or "").strip().splitlines()[0]
            gdb.write("%-14s %s\n" % (name, doc))


class SpPs(gdb.Command):
    """Every task: pid, state (R S D Z X), name, wait channel, waits on.

The state letters are ps's: D is an uninterruptible sleep, the I/O wait.
The wait channel is where the task chose to sleep (as /proc/PID/wchan);
"waits on" names the wait queue, mutex (with its owner) or completion its
waiter is linked into, found on the task's stack.  The task on the CPU
is marked with '>'."""

    def __init__(self):
        super().__init__("sp-ps", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        cur = int(current_task())
        gdb.write("  %5s %s %-16s %-32s %s\n" % ("PID", "S", "COMM", "WCHAN", "WAITS ON"))
        for p in all_tasks():
            trace = stack_trace(p)
            # The task on the CPU has no wait channel (get_wchan() says 0),
            # even between setting its state and calling schedule().
            if int(p) == cur:
                where = "(on the CPU)"
            else:
                pc = wchan(p, trace) if state_letter(p) in "DS" else None
                where = symbolise(pc) if pc else "-"
            gdb.write("%s %5d %s %-16s %-32s %s\n" % (
                ">" if int(p) == cur else " ", int(p["pid"]), state_letter(p),
                cstr(p["comm"]), where,
                waits_on(p, trace) if state_letter(p) in "DS" else ""))


class SpBt(gdb.Command):
    """A task's kernel backtrace by its frame pointers: sp-bt PID|NAME.

Works for a task that is switched out (from its saved ksp, as the
hung-task detector's "Call Trace:"), where GDB's own `bt` only sees the
task on the CPU.  Each frame with its source line."""

    def __init__(self):
        super().__init__("sp-bt", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        p = find_task(arg)
        trace = stack_trace(p)
        if not trace:
            gdb.write("no backtrace: %s\n" % ("the task has exited"
                                                if not int(p["stack"]) else
                                                "ksp is not on its stack"))
        on_cpu = int(p) == int(current_task())
        for i, pc in enumerate(trace):
            # a return address's line is the call's: look just before it
            # (but the CPU's own pc is where it stands)
            sal = gdb.find_pc_line(pc if on_cpu and i == 0 else pc - 1)
            where = "%s:%d" % (sal.symtab.filename, sal.line) if sal.symtab else ""
            gdb.write("#%-2d %#018x %-36s %s\n" % (i, pc, symbolise(pc), where))


# --- bios --------------------------------------------------------------------

def bio_op(bio):
    return int(bio["bi_opf"]) & REQ_OP_MASK


def flag_names(value, table):
    return [name for bit, name in table if value & bit]


def disk_name(disk):
    return cstr(disk["disk_name"]) if int(disk) else "?"


def bio_line(bio):
    """'dm-0 W 0+8' as the hung-task report prints a bio, then its flags."""
    sectors = int(bio["bi_iter"]["bi_size"]) >> 9
    flags = flag_names(int(bio["bi_opf"]), REQ_FLAGS) + \
        flag_names(int(bio["bi_flags"]), BIO_FLAGS)
    partno = int(bio["bi_partno"])
    pool = bio["bi_pool"]
    return "%s%s %s %d+%d%s%s" % (
        disk_name(bio["bi_disk"]), "p%d" % partno if partno else "",
        OP_LETTERS.get(bio_op(bio), "?"), int(bio["bi_iter"]["bi_sector"]),
        sectors, (" [%s]" % ",".join(flags)) if flags else "",
        "  from bio_set %s" % cstr(pool["name"]) if int(pool) else "")


def bio_chain(bio):
    seen = set()
    while int(bio) and int(bio) not in seen and len(seen) < MAX_LIST:
        seen.add(int(bio))
        yield bio
        bio = bio["bi_next"]


def write_bio_list(title, bl, indent="  "):
    bios = list(bio_chain(bl["head"]))
    gdb.write("%s%s: %d bio(s)\n" % (indent, title, len(bios)))
    for bio in bios:
        gdb.write("%s  bio %#x  %s\n" % (indent, int(bio), bio_line(bio)))


class SpBioList(gdb.Command):
    """A task's current->bio_list: sp-bio-list [PID|NAME] (default current).

generic_make_request() points it at two lists on its own stack while a
make_request_fn of the task runs: [0] what the running call queued, [1]
what was waiting from before.  NULL: the task is not submitting."""

    def __init__(self):
        super().__init__("sp-bio-list", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        p = find_task(arg)
        bl = p["bio_list"]
        gdb.write("%s:%d bio_list " % (cstr(p["comm"]), int(p["pid"])))
        if not int(bl):
            gdb.write("NULL (not inside generic_make_request)\n")
            return
        gdb.write("%#x\n" % int(bl))
        write_bio_list("bio_list[0] (from the running make_request_fn)", bl[0])
        write_bio_list("bio_list[1] (waiting from before)", bl[1])


class SpBio(gdb.Command):
    """A bio and the bios after it on bi_next: sp-bio EXPR.

One line each: address, disk, op, sector+sectors, flags (REQ_* of bi_opf,
BIO_* of bi_flags), then the segments' count and the end_io function."""

    def __init__(self):
        super().__init__("sp-bio", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: sp-bio EXPR (a struct bio *)")
        bio = gdb.parse_and_eval(arg).cast(T("struct bio").pointer())
        for b in bio_chain(bio):
            end_io = int(b["bi_end_io"])
            gdb.write("bio %#x  %s  vcnt=%d end_io=%s\n" % (
                int(b), bio_line(b), int(b["bi_vcnt"]),
                symbolise(end_io) if end_io else "-"))


# --- requests, plugs, elevators -------------------------------------------------

def all_disks():
    return list(list_for_each_entry(gdb.parse_and_eval("&disk_list"),
                                    "struct gendisk", "list"))


def find_disk(arg):
    """A gendisk by name, or from an expression of one of the block
    layer's pointer types."""
    arg = arg.strip()
    if not arg:
        raise gdb.GdbError("name a disk (sda, dm-2, nullb0) or give a pointer")
    for d in all_disks():
        if cstr(d["disk_name"]) == arg:
            return d
    try:
        v = gdb.parse_and_eval(arg)
    except gdb.error:
        raise gdb.GdbError("no disk %s" % arg)
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        name = str(t.target().strip_typedefs())
        if name == "struct gendisk":
            return v
        if name == "struct block_device":
            return v["bd_disk"]
        if name == "struct request_queue":
            for d in all_disks():
                if int(d["queue"]) == int(v):
                    return d
    raise gdb.GdbError("no disk %s" % arg)


def rq_line(rq):
    nbios = len(list(bio_chain(rq["bio"])))
    return "rq %#x  tag %2d  %-14s %s %d+%d  %d bio(s)" % (
        int(rq), int(rq["tag"]), str(rq["state"]),
        OP_LETTERS.get(int(rq["cmd_flags"]) & REQ_OP_MASK, "?"),
        int(rq["__sector"]), int(rq["__data_len"]) >> 9, nbios)


def elevator_lists(q):
    """(title, list_head address, link field) of q's elevator's lists."""
    elv = q["elevator"]
    if not int(elv):
        return "none", []
    name = cstr(elv["type"]["elevator_name"])
    data = elv["elevator_data"]
    if name == "cscan":
        cd = data.cast(T("struct cscan_data").pointer())
        return name, [("dispatch (at_head)", cd["dispatch"].address, "queuelist"),
                      ("sorted", cd["sorted"].address, "elv_sort")]
    if name == "mq-deadline":
        dd = data.cast(T("struct deadline_data").pointer())
        return name, [("dispatch (at_head)", dd["dispatch"].address, "queuelist"),
                      ("sort_list[READ]", dd["sort_list"][0].address, "elv_sort"),
                      ("sort_list[WRITE]", dd["sort_list"][1].address, "elv_sort"),
                      ("fifo_list[READ]", dd["fifo_list"][0].address, "queuelist"),
                      ("fifo_list[WRITE]", dd["fifo_list"][1].address, "queuelist")]
    if name == "none":
        nd = data.cast(T("struct noop_data").pointer())
        return name, [("queue (arrival order)", nd["queue"].address, "queuelist")]
    return name, []


def request_places(q):
    """Map request address -> where it waits, from every list a request
    of q can be on while it is not with the driver."""
    where = {}
    for p in all_tasks():
        plug = p["plug"]
        if int(plug):
            for rq in list_for_each_entry(plug["mq_list"].address,
                                          "struct request", "queuelist"):
                where[int(rq)] = "plug of %s:%d" % (cstr(p["comm"]), int(p["pid"]))
    for h in range(int(q["nr_hw_queues"])):
        hctx = q["queue_hw_ctx"][h]
        for rq in list_for_each_entry(hctx["dispatch"].address, "struct request", "queuelist"):
            where[int(rq)] = "hctx->dispatch (came back busy)"
        for c in range(int(hctx["nr_ctx"])):
            ctx = hctx["ctxs"][c]
            for rq in list_for_each_entry(ctx["rq_list"].address, "struct request", "queuelist"):
                where[int(rq)] = "software queue of cpu %d" % int(ctx["cpu"])
    name, lists = elevator_lists(q)
    for title, head, field in lists:
        for rq in list_for_each_entry(head, "struct request", field):
            where.setdefault(int(rq), "elevator %s" % name)
    for rq in list_for_each_entry(q["flush_pending"].address, "struct request", "flush_list"):
        where.setdefault(int(rq), "waiting for a flush")
    return where


class SpRq(gdb.Command):
    """A request queue's requests: sp-rq DISK.

Every request of the hardware queues' pools that is not free, with its tag (-1
before dispatch), its state (IDLE, IN_FLIGHT, COMPLETE), op, sector+
sectors, bios, and where it is: on a task's plug, in the elevator, on
a hardware queue's dispatch list or a CPU's software queue, or with the
driver (its hardware queue's tags_used; one mask per hardware queue)."""

    def __init__(self):
        super().__init__("sp-rq", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        disk = find_disk(arg)
        q = disk["queue"]
        if not int(q["tag_set"]):
            gdb.write("%s: bio-based (make_request_fn %s): no requests\n" % (
                disk_name(disk), symbolise(int(q["make_request_fn"]))))
            return
        where = request_places(q)
        hctxs = [q["queue_hw_ctx"][h] for h in range(int(q["nr_hw_queues"]))]
        # each hardware queue has its own pool of nr_requests requests
        # (static_rqs) and its own free list
        free = set()
        for h in hctxs:
            free.update(int(rq) for rq in list_for_each_entry(
                h["free_rqs"].address, "struct request", "queuelist"))
        per_hctx = int(q["nr_requests"])
        depth = int(q["tag_set"]["queue_depth"])
        gdb.write("%s: queue %#x, %d requests (%d free), depth %d, tags in use %s\n" % (
            disk_name(disk), int(q), per_hctx * len(hctxs), len(free), depth,
            " ".join("%#x" % int(h["tags_used"]) for h in hctxs)))
        pool = [h["static_rqs"][i].address for h in hctxs for i in range(per_hctx)]
        for rq in pool:
            if int(rq) in free:
                continue
            tag = int(rq["tag"])
            hctx = rq["mq_hctx"]
            if (tag >= 0 and int(hctx) and int(hctx["tags_used"]) & (1 << tag)
                    and int(hctx["tag_rq"][tag]) == int(rq)):
                place = "with the driver (tag_rq[%d])" % tag
                if len(hctxs) > 1:
                    place += " of hctx %d" % int(hctx["queue_num"])
            else:
                place = where.get(int(rq), "in the request layer")
            gdb.write("  %s  %s\n" % (rq_line(rq), place))


class SpPlug(gdb.Command):
    """A task's plug: sp-plug [PID|NAME] (default current).

current->plug is a struct blk_plug on the task's stack, between
blk_start_plug() and blk_finish_plug(): the requests held on it
(mq_list, rq_count of them) and the callbacks of stacked drivers
(cb_list, e.g. dm-raid1's mirror_unplug)."""

    def __init__(self):
        super().__init__("sp-plug", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        p = find_task(arg)
        plug = p["plug"]
        gdb.write("%s:%d plug " % (cstr(p["comm"]), int(p["pid"])))
        if not int(plug):
            gdb.write("NULL (no plug)\n")
            return
        rqs = list(list_for_each_entry(plug["mq_list"].address,
                                       "struct request", "queuelist"))
        cbs = list(list_for_each_entry(plug["cb_list"].address,
                                       "struct blk_plug_cb", "list"))
        gdb.write("%#x: rq_count %d\n" % (int(plug), int(plug["rq_count"])))
        gdb.write("  mq_list: %d request(s)\n" % len(rqs))
        for rq in rqs:
            gdb.write("    %s  %s\n" % (rq_line(rq), queue_disk_name(rq["q"])))
            for bio in bio_chain(rq["bio"]):
                gdb.write("      bio %#x  %s\n" % (int(bio), bio_line(bio)))
        gdb.write("  cb_list: %d callback(s)\n" % len(cbs))
        for cb in cbs:
            gdb.write("    cb %#x  %s  data %s\n" % (
                int(cb), symbolise(int(cb["callback"])), name_of(int(cb["data"]))))


def queue_disk_name(q):
    for d in all_disks():
        if int(d["queue"]) == int(q):
            return disk_name(d)
    return "queue %#x" % int(q)


class SpElv(gdb.Command):
    """The elevator's lists of a disk's queue: sp-elv DISK.

cscan: one list sorted by sector (and its at_head dispatch list) and
head_pos, where the sweep stands; mq-deadline: a sorted and a FIFO list
per direction, and the batch state; none: one list in arrival order."""

    def __init__(self):
        super().__init__("sp-elv", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        disk = find_disk(arg)
        q = disk["queue"]
        name, lists = elevator_lists(q)
        gdb.write("%s: elevator %s" % (disk_name(disk), name))
        elv = q["elevator"]
        if name == "cscan":
            cd = elv["elevator_data"].cast(T("struct cscan_data").pointer())
            gdb.write(", head_pos %d" % int(cd["head_pos"]))
        elif name == "mq-deadline":
            dd = elv["elevator_data"].cast(T("struct deadline_data").pointer())
            gdb.write(", last_dir %s, batching %d, starved %d, latest_pos R %d W %d" % (
                "W" if int(dd["last_dir"]) else "R", int(dd["batching"]),
                int(dd["starved"]), int(dd["latest_pos"][0]), int(dd["latest_pos"][1])))
        gdb.write("\n")
        for title, head, field in lists:
            rqs = list(list_for_each_entry(head, "struct request", field))
            gdb.write("  %s: %d request(s)\n" % (title, len(rqs)))
            last = None
            for rq in rqs:
                gdb.write("    %s\n" % rq_line(rq))
                # A sorted list out of order is the bug to see (lab 4).
                pos = int(rq["__sector"])
                if field == "elv_sort" and last is not None and pos < last:
                    gdb.write("    !! not in sector order: %d after %d\n" % (pos, last))
                last = pos


# --- device stacks ---------------------------------------------------------------

def mapped_devices():
    try:
        head = gdb.parse_and_eval("&mapped_devices")
    except gdb.error:
        return []
    return list(list_for_each_entry(head, "struct mapped_device", "list"))


def mapped_device_of(disk):
    for md in mapped_devices():
        if int(md["disk"]) == int(disk):
            return md
    return None


def driver_of(disk):
    q = disk["queue"]
    if not int(q):
        return "no queue"
    if int(q["tag_set"]):
        name, _ = elevator_lists(q)
        return "request-based, queue_rq %s, elevator %s, depth %d" % (
            symbolise(int(q["tag_set"]["ops"]["queue_rq"])).split("+")[0],
            name, int(q["tag_set"]["queue_depth"]))
    return "bio-based, make_request_fn %s" % \
        symbolise(int(q["make_request_fn"])).split("+")[0]


def write_stack(disk, depth, seen):
    pad = "  " * depth
    md = mapped_device_of(disk)
    size = int(disk["capacity"])
    if md is None:
        gdb.write("%s%s (%d sectors): %s\n" % (pad, disk_name(disk), size, driver_of(disk)))
        return
    gdb.write("%s%s (dm \"%s\", %d sectors)\n" % (pad, disk_name(disk),
                                                  cstr(md["name"]), size))
    if int(disk) in seen:
        gdb.write("%s  ... (a loop!)\n" % pad)
        return
    seen = seen | {int(disk)}
    t = md["map"]
    if not int(t):
        gdb.write("%s  no table\n" % pad)
        return
    for i in range(int(t["num_targets"])):
        ti = t["targets"][i]
        gdb.write("%s  target %d: %d+%d %s\n" % (pad, i, int(ti["begin"]), int(ti["len"]),
                                                 cstr(ti["type"]["name"])))
    for dev in list_for_each_entry(t["devices"].address, "struct dm_dev", "list"):
        bdev = dev["bdev"]
        below = bdev["bd_disk"]
        if int(bdev["bd_partno"]):
            gdb.write("%s  -> %s (partition %d of %s, from sector %d)\n" % (
                pad, cstr(bdev["bd_name"]), int(bdev["bd_partno"]),
                disk_name(below), int(bdev["bd_start_sect"])))
            write_stack(below, depth + 2, seen)
        else:
            gdb.write("%s  -> %s\n" % (pad, cstr(bdev["bd_name"])))
            write_stack(below, depth + 2, seen)


class SpDevStack(gdb.Command):
    """A device stack from a disk down: sp-dev-stack DISK (e.g. dm-2).

A device-mapper device shows its table's targets and, below, each device
its table holds (struct dm_dev), recursively; a disk at the bottom shows
its driver: the make_request_fn of a bio-based one, or the queue_rq,
elevator and depth of a request-based one."""

    def __init__(self):
        super().__init__("sp-dev-stack", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if arg.strip():
            write_stack(find_disk(arg), 0, set())
            return
        mds = mapped_devices()
        if not mds:
            gdb.write("no device-mapper devices; name a disk (sp-dev-stack sda)\n")
        for md in mds:
            write_stack(md["disk"], 0, set())


COMMANDS = {"sp-help": SpHelp, "sp-ps": SpPs, "sp-bt": SpBt,
            "sp-bio-list": SpBioList, "sp-bio": SpBio, "sp-rq": SpRq,
            "sp-plug": SpPlug, "sp-elv": SpElv, "sp-dev-stack": SpDevStack}
for _cls in COMMANDS.values():
    _cls()
Current()
gdb.write("spindle.py: loaded; sp-help lists its commands\n")
