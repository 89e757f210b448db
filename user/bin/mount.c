// SPDX-License-Identifier: MIT
/*
 * mount                          list the mounts (/proc/mounts)
 * mount -t TYPE [-o ro] SOURCE TARGET
 *                                mount a file system: proc, sysfs,
 *                                devtmpfs, ramfs, ext2 on a block device...
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

int main(int argc, char **argv)
{
	const char *type = NULL, *opts = NULL;
	unsigned long flags = 0;
	int c, err;

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
	if (argc - optind != 2 || !type)
		goto usage;
	if (opts && strcmp(opts, "ro") == 0)
		flags |= MS_RDONLY;
	else if (opts && strcmp(opts, "rw") != 0) {
		fprintf(stderr, "mount: unsupported options '%s' (ro or rw)\n", opts);
		return 2;
	}
	err = mount(argv[optind], argv[optind + 1], type, flags, NULL);
	if (err < 0 && errno == EROFS && !opts) {
		err = mount(argv[optind], argv[optind + 1], type, flags | MS_RDONLY, NULL);
		if (err == 0) /* util-linux's words */
			fprintf(stderr, "mount: %s: WARNING: source write-protected, mounted read-only.\n",
				argv[optind + 1]);
	}
	if (err < 0) {
		fprintf(stderr, "mount: %s on %s: %s\n", argv[optind], argv[optind + 1],
			strerror(errno));
		return 1;
	}
	return 0;
usage:
	fputs("usage: mount [-t TYPE [-o ro] SOURCE TARGET]\n", stderr);
	return 2;
}
