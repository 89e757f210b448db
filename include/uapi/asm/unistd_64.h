/* SPDX-License-Identifier: MIT */
/*
 * uapi/asm/unistd_64.h - the system-call numbers of Linux's x86-64 ABI
 * (Linux's arch/x86/entry/syscalls/syscall_64.tbl) that Spindle implements:
 * the one list the kernel's table (include/spindle/syscalls.h,
 * kernel/arch/x86/syscall.c) and the C library (user/lib/syscall.h) both
 * use, so a number cannot mean one call to the kernel and another to the
 * library.  Linux's own header has the same name and the same numbers.
 */
#ifndef _UAPI_ASM_UNISTD_64_H
#define _UAPI_ASM_UNISTD_64_H

#define __NR_read               0
#define __NR_write              1
#define __NR_open               2
#define __NR_close              3
#define __NR_stat               4
#define __NR_fstat              5
#define __NR_lstat              6
#define __NR_lseek              8
#define __NR_mmap               9
#define __NR_munmap             11
#define __NR_brk                12
#define __NR_rt_sigaction       13
#define __NR_rt_sigprocmask     14
#define __NR_rt_sigreturn       15
#define __NR_ioctl              16
#define __NR_pread64            17
#define __NR_pwrite64           18
#define __NR_pipe               22
#define __NR_sched_yield        24
#define __NR_dup                32
#define __NR_dup2               33
#define __NR_nanosleep          35
#define __NR_getpid             39
#define __NR_fork               57
#define __NR_vfork              58
#define __NR_execve             59
#define __NR_exit               60
#define __NR_wait4              61
#define __NR_kill               62
#define __NR_uname              63
#define __NR_fsync              74
#define __NR_fdatasync          75
#define __NR_ftruncate          77
#define __NR_getcwd             79
#define __NR_chdir              80
#define __NR_mkdir              83
#define __NR_rmdir              84
#define __NR_unlink             87
#define __NR_mknod              133
#define __NR_statfs             137
#define __NR_fstatfs            138
#define __NR_setpgid            109
#define __NR_getppid            110
#define __NR_getpgrp            111
#define __NR_setsid             112
#define __NR_sync               162
#define __NR_mount              165
#define __NR_umount2            166
#define __NR_reboot             169
#define __NR_io_setup           206
#define __NR_io_destroy         207
#define __NR_io_getevents       208
#define __NR_io_submit          209
#define __NR_io_cancel          210
#define __NR_getdents64         217
#define __NR_clock_gettime      228
#define __NR_exit_group         231
#define __NR_openat             257
#define __NR_pipe2              293
#define __NR_syncfs             306

#endif /* _UAPI_ASM_UNISTD_64_H */
