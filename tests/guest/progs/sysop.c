// SPDX-License-Identifier: GPL-2.0
/*
 * sysop: one file-system operation, reporting the errno by name, for shell
 * tests that need to tell EINVAL from EBUSY.
 *
 *   sysop write FILE VALUE   one write() of VALUE (no newline added)
 *   sysop mkdir DIR
 *   sysop rmdir DIR
 *   sysop open FILE          open read-write and close
 *
 * Prints OK or the errno name (EINVAL, EBUSY, ...) and exits 0; exits 2 on
 * bad usage.
 */
#include "common.h"

int main(int argc, char **argv)
{
	int e;

	if (argc == 4 && !strcmp(argv[1], "write")) {
		e = write_attr(argv[2], argv[3]);
	} else if (argc == 3 && !strcmp(argv[1], "mkdir")) {
		e = mkdir(argv[2], 0755) ? errno : 0;
	} else if (argc == 3 && !strcmp(argv[1], "rmdir")) {
		e = rmdir(argv[2]) ? errno : 0;
	} else if (argc == 3 && !strcmp(argv[1], "open")) {
		int fd = open(argv[2], O_RDWR);

		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
	} else {
		fprintf(stderr, "usage: sysop write FILE VALUE | mkdir DIR | rmdir DIR | open FILE\n");
		return 2;
	}
	printf("%s\n", errname(e));
	return 0;
}
