/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Becoming another user, as the VM suites' attackers do: a user namespace
 * made by an unprivileged uid, as `unshare -Urn` makes one.
 */
#ifndef KBLOOM_TEST_VM_USERNS_H
#define KBLOOM_TEST_VM_USERNS_H

#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* @text into the file @path; 0 or -1. */
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * As uid @outer, makes a new user namespace (and, with @net, a new netns)
 * mapping @outer to @inner (0: root there); 0 or -1.
 */
static inline int userns_as(int outer, bool net, int inner)
{
	char map[32];

	snprintf(map, sizeof(map), "%d %d 1", inner, outer);
	/*
	 * setuid() made the process undumpable, and its /proc/self files
	 * root's: dumpable again, as after the exec of `unshare -Urn`.
	 */
	if (setgid(outer) || setuid(outer) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ||
	    unshare(CLONE_NEWUSER | (net ? CLONE_NEWNET : 0)))
		return -1;
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", map) ||
	    write_file("/proc/self/gid_map", map))
		return -1;
	return 0;
}

#endif
