/* SPDX-License-Identifier: MIT */
/* unistd.h - the POSIX system-call wrappers (user/lib/syscalls.c, unistd.c). */
#ifndef _UNISTD_H
#define _UNISTD_H

#include <sys/types.h>

#define STDIN_FILENO  0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

#ifndef SEEK_SET
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

extern char **environ;

ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
/* Spindle's libc, not POSIX: write all n bytes, retrying short writes and
 * writes a signal interrupted; 0, or -1 with errno (user/lib/stdio.c). */
int write_all(int fd, const void *buf, size_t n);
int close(int fd);
off_t lseek(int fd, off_t off, int whence);
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
int dup(int fd);
int dup2(int fd, int newfd);
int pipe(int fds[2]);
int pipe2(int fds[2], int flags);
pid_t fork(void);
pid_t vfork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
void _exit(int status) __attribute__((noreturn));
pid_t getpid(void);
pid_t getppid(void);
pid_t getpgrp(void);
int setpgid(pid_t pid, pid_t pgid);
pid_t setsid(void);
pid_t tcgetpgrp(int fd);
int tcsetpgrp(int fd, pid_t pgrp);
int isatty(int fd);
int chdir(const char *path);
char *getcwd(char *buf, size_t size);
int rmdir(const char *path);
int unlink(const char *path);
int access(const char *path, int mode);
void sync(void);
int fsync(int fd);
int fdatasync(int fd);
int ftruncate(int fd, off_t length);
unsigned int sleep(unsigned int seconds);
int usleep(useconds_t usec);
void *sbrk(long increment);
int brk(void *addr);
int sched_yield(void);

/* getopt(3), POSIX's option parser */
extern char *optarg;
extern int optind, opterr, optopt;
int getopt(int argc, char *const argv[], const char *optstring);

/* a raw system call: returns -errno, does not touch errno */
long __syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
long syscall(long nr, ...);

#endif
