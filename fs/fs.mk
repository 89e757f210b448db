# SPDX-License-Identifier: MIT
# The file layer (fs/): included by the top-level Makefile.
F := fs

FS_OBJS := \
	lib/iov_iter.o \
	$(F)/dcache.o \
	$(F)/inode.o \
	$(F)/namespace.o \
	$(F)/namei.o \
	$(F)/file_table.o \
	$(F)/file.o \
	$(F)/open.o \
	$(F)/read_write.o \
	$(F)/stat.o \
	$(F)/utimes.o \
	$(F)/readdir.o \
	$(F)/ioctl.o \
	$(F)/sync.o \
	$(F)/pipe.o \
	$(F)/anon_inodes.o \
	$(F)/timerfd.o \
	$(F)/select.o \
	$(F)/ramfs.o \
	$(F)/initramfs.o \
	$(F)/char_dev.o \
	$(F)/tty.o \
	$(F)/pseudo.o \
	$(F)/devtmpfs.o \
	$(F)/filemap.o \
	$(F)/mpage.o \
	$(F)/fs-writeback.o \
	$(F)/direct-io.o \
	$(F)/block_dev.o \
	$(F)/aio.o \
	$(F)/io_uring.o \
	$(F)/io_uring_cq.o \
	$(F)/io-wq.o \
	$(F)/io_uring_timeout.o \
	$(F)/io_uring_cancel.o \
	$(F)/proc.o \
	$(F)/sysfs.o \
	$(F)/debugfs.o \
	$(F)/ext2/check.o \
	$(F)/ext2/buffer.o \
	$(F)/ext2/super.o \
	$(F)/ext2/inode.o \
	$(F)/ext2/dirent.o \
	$(F)/ext2/htree.o \
	$(F)/ext2/dir.o \
	$(F)/ext2/namei.o \
	$(F)/ext2/symlink.o \
	$(F)/ext2/balloc.o \
	$(F)/ext2/ialloc.o \
	$(F)/ext2/file.o \
	$(F)/ext2/journal.o \
	$(F)/jbd2/journal.o \
	$(F)/jbd2/recovery.o \
	$(F)/jbd2/revoke.o \
	$(F)/jbd2/transaction.o \
	$(F)/jbd2/commit.o \
	$(F)/do_mounts.o

# Everything but the boot glue (do_mounts.c), poll's sleeping (select.c,
# which the pipes and the tty only notify) and timerfd (a system call on
# the tick's timers) also runs in the host unit tests.
FS_UNIT_SRCS := $(filter-out $(F)/do_mounts.c $(F)/select.c $(F)/timerfd.c,$(FS_OBJS:.o=.c))
