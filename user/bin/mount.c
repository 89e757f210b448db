// SPDX-License-Identifier: MIT
/*
 * mount                          list the mounts (/proc/mounts)
 * mount -t TYPE [-o OPTIONS] SOURCE TARGET
 *                                mount a file system: proc, sysfs,
 *                                devtmpfs, ramfs, ext2 on a block device...
 * mount -o remount[,ro|,rw][,OPTIONS] TARGET
 *                                change a mounted file system in place
 *                                (MS_REMOUNT): read-only or read-write,
 *                                neither: as it is (new OPTIONS only)
 * OPTIONS, comma-separated: ro, rw and remount become mount(2)'s flags, the others
 * (errors=remount-ro ...) go to the file system as its data, as
 * util-linux passes them.
 * As util-linux's: a file system that cannot be written (the kernel says
 * EROFS) is mounted read-only instead, with a warning, unless -o was given.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>

static int show_mounts(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/mounts", O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "mount: /proc/mounts: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		write(1, buf, (size_t)n);
	close(fd);
	return 0;
}

/*
 * Is the mount on dir read-only now?  A remount that says neither ro nor
 * rw keeps what the mount is, as util-linux (which reads the mount's
 * current options) does.
 */
static int mounted_ro(const char *dir)
{
	static char buf[8192];
	ssize_t n, got = 0;
	int fd = open("/proc/mounts", O_RDONLY), ro = 0;

	if (fd < 0)
		return 0;
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	/* "dev dir type opts 0 0": the last line naming dir is on top */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *at = strchr(line, ' '), *end;

		if (!at || !(end = strchr(++at, ' ')) || (size_t)(end - at) != strlen(dir) ||
		    strncmp(at, dir, strlen(dir)))
			continue;
		at = strchr(end + 1, ' ');
		ro = at && !strncmp(at + 1, "ro", 2) && (at[3] == ',' || at[3] == ' ');
	}
	return ro;
}

int main(int argc, char **argv)
{
	const char *type = NULL, *opts = NULL, *source, *target;
	char data[256] = "", word[256];
	unsigned long flags = 0;
	int c, err, rw = 0;

	if (argc == 1)
		return show_mounts();
	while ((c = getopt(argc, argv, "t:o:")) != -1) {
		if (c == 't')
			type = optarg;
		else if (c == 'o')
			opts = optarg;
		else
			goto usage;
	}
	for (const char *o = opts; o && *o;) {
		size_t n = strcspn(o, ",");

		if (n >= sizeof(word) || strlen(data) + n + 2 > sizeof(data)) {
			fprintf(stderr, "mount: options too long: '%s'\n", opts);
			return 2;
		}
		memcpy(word, o, n);
		word[n] = '\0';
		if (strcmp(word, "ro") == 0) {
			flags |= MS_RDONLY;
		} else if (strcmp(word, "remount") == 0) {
			flags |= MS_REMOUNT;
		} else if (strcmp(word, "rw") == 0) {
			rw = 1;
		} else if (n) {
			if (data[0])
				strcat(data, ",");
			strcat(data, word);
		}
		o += n + (o[n] == ',');
	}
	/* remount names the mount point only (util-linux's usage) */
	if ((flags & MS_REMOUNT) && argc - optind == 1) {
		source = "none";
		target = argv[optind];
	} else if (argc - optind == 2 && (type || (flags & MS_REMOUNT))) {
		source = argv[optind];
		target = argv[optind + 1];
	} else {
		goto usage;
	}
	if ((flags & MS_REMOUNT) && !(flags & MS_RDONLY) && !rw && mounted_ro(target))
		flags |= MS_RDONLY;
	err = mount(source, target, type, flags, data[0] ? data : NULL);
	if (err < 0 && errno == EROFS && !opts) {
		err = mount(source, target, type, flags | MS_RDONLY, NULL);
		if (err == 0) /* util-linux's words */
			fprintf(stderr, "mount: %s: WARNING: source write-protected, mounted read-only.\n",
				target);
	}
	if (err < 0) {
		if (flags & MS_REMOUNT)
			fprintf(stderr, "mount: %s: cannot remount: %s\n", target, strerror(errno));
		else
			fprintf(stderr, "mount: %s on %s: %s\n", source, target, strerror(errno));
		return 1;
	}
	return 0;
usage:
	fputs("usage: mount [-t TYPE [-o OPTIONS] SOURCE TARGET]\n"
	      "       mount -o remount[,ro|,rw] TARGET\n",
	      stderr);
	return 2;
}
