// SPDX-License-Identifier: GPL-2.0
/*
 * busy: power 0, rmdir and module unload refuse while the device is in use.
 *
 *   busy DEV CFSDIR        (DEV powered on, CFSDIR its configfs folder)
 *
 * Open:    power 0 -> EBUSY, rmdir -> EBUSY, unloading the module fails.
 * Mapped (fd closed): power 0 -> EBUSY.
 * Mapped only by a forked child: power 0 -> EBUSY.
 * Unused:  power 0 succeeds and the device node goes away.
 */
#include "common.h"
#include <sys/syscall.h>

static int power_write(const char *cfs, const char *v)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/power", cfs);
	return write_attr(p, v);
}

static int power_is(const char *cfs, const char *want)
{
	char p[256], buf[32];

	snprintf(p, sizeof(p), "%s/power", cfs);
	return read_attr(p, buf, sizeof(buf)) == 0 && !strcmp(buf, want);
}

int main(int argc, char **argv)
{
	const char *dev, *cfs;
	int fd, e, pipefd[2];
	struct stat st;
	volatile char *map;
	pid_t pid;
	char c;

	tap_init();
	if (argc != 3) {
		fprintf(stderr, "usage: busy DEV CFSDIR\n");
		return 2;
	}
	dev = argv[1];
	cfs = argv[2];

	fd = open(dev, O_RDWR);
	if (!ok(fd >= 0, "open %s", dev))
		return 1;
	e = power_write(cfs, "0");
	ok(e == EBUSY, "power 0 while open: %s (want EBUSY)", errname(e));
	ok(power_is(cfs, "1"), "still powered");
	e = rmdir(cfs) ? errno : 0;
	ok(e == EBUSY, "rmdir while powered and open: %s (want EBUSY)", errname(e));
	ok(stat(cfs, &st) == 0, "configfs folder still there");
	e = syscall(SYS_delete_module, "cxdvirt", O_NONBLOCK) ? errno : 0;
	if (!ok(e != 0, "module unload while open fails: %s", errname(e)))
		return 1;	/* the module is gone: nothing more to test */

	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!ok(map != MAP_FAILED, "mmap one page"))
		return 1;
	map[0] = 1;
	close(fd);
	e = power_write(cfs, "0");
	ok(e == EBUSY, "power 0 while mapped (fd closed): %s (want EBUSY)", errname(e));
	e = rmdir(cfs) ? errno : 0;
	ok(e == EBUSY, "rmdir while mapped: %s (want EBUSY)", errname(e));

	/* A child inherits the mapping; the parent drops its own. */
	if (pipe(pipefd))
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		map[1] = 2;
		/* Wait for the parent to close its end. */
		while (read(pipefd[0], &c, 1) > 0)
			;
		_exit(map[0] == 1 && map[1] == 2 ? 0 : 1);
	}
	close(pipefd[0]);
	munmap((void *)map, PAGE);
	e = power_write(cfs, "0");
	ok(e == EBUSY, "power 0 while a forked child maps it: %s (want EBUSY)", errname(e));
	close(pipefd[1]);
	{
		int status = -1;

		waitpid(pid, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "child read the data through the inherited mapping");
	}

	e = power_write(cfs, "0");
	ok(e == 0, "power 0 once unmapped and closed: %s", errname(e));
	ok(power_is(cfs, "0"), "power reads 0");
	ok(stat(dev, &st) != 0 && errno == ENOENT, "%s removed", dev);
	return tap_exit();
}
