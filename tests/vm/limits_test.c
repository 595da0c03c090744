// SPDX-License-Identifier: GPL-2.0
/*
 * The module's limits and its accounting, in the test VM:
 *
 *   /sys/module/kbloom/parameters/{max_memory,max_filters}  (set at runtime)
 *   test --STATUS--> filters and bytes of this netns, of all, the limits
 *   test --CREATE past a limit--> ENOMEM / ENOSPC, a message, nothing made
 *   child in a new netns --CREATE--> counted there and in MEM_ALL only
 *   child in a 48 MiB memory cgroup --CREATE 64 MiB--> ENOMEM, nobody killed
 *   a long ADD (stable filter, P 65536) on CPU 0 --> a 1 ms sleeper there runs
 */
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "vm_harness.h"
#include "nlraw.h"

#define PARAMS "/sys/module/kbloom/parameters/"

static unsigned long long param_get(const char *name)
{
	char path[128], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	if (f)
		fclose(f);
	return strtoull(buf, NULL, 10);
}

static int write_str(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(v, f) < 0;
	return fclose(f) || err ? -EIO : 0;
}

static int param_set(const char *name, unsigned long long v)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(buf, sizeof(buf), "%llu\n", v);
	return write_str(path, buf);
}

/* "KEY N" of a flat-keyed cgroup file such as memory.events; -1 if none. */
static long long cg_key(const char *path, const char *key)
{
	char k[64];
	long long v, found = -1;
	FILE *f = fopen(path, "r");

	while (f && fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	if (f)
		fclose(f);
	return found;
}

static int status(struct nlr *s, struct nlr_msg *m)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
	return nlr_send(s, m);
}

/*
 * Runs @fn(@io) in a child process, which may unshare or change its cgroup
 * freely, and copies back the @len bytes of @io it leaves (only when @fn
 * returned 0: its exit status). Returns the child's wait status, -1 if it
 * could not be run.
 */
static int in_child(int (*fn)(void *io), void *io, size_t len)
{
	int pipefd[2], st = -1;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int r = fn(io);

		if (!r && write(pipefd[1], io, len) != (ssize_t)len)
			r = 2;
		_exit(r);
	}
	close(pipefd[1]);
	if (pid > 0 && (read(pipefd[0], io, len) < 0 ||
			waitpid(pid, &st, 0) != pid))
		st = -1;
	close(pipefd[0]);
	return st;
}

FIXTURE(lim) {
	struct nlr s;
	struct nlr_msg m;
	unsigned long long max_memory, max_filters;
};

FIXTURE_SETUP(lim)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
	self->max_memory = param_get("max_memory");
	self->max_filters = param_get("max_filters");
	ASSERT_LT(0, self->max_memory);
}

FIXTURE_TEARDOWN(lim)
{
	param_set("max_memory", self->max_memory);
	param_set("max_filters", self->max_filters);
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

TEST_F(lim, status_counts_filters_and_bytes)
{
	struct nlr *s = &self->s;
	uint64_t mem;

	ASSERT_EQ(0, status(s, &self->m));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NFILTERS));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_MEM_NETNS));
	EXPECT_EQ(self->max_memory, reply_u64(s, KBLOOM_A_MEM_LIMIT));
	EXPECT_EQ(self->max_filters, reply_u32(s, KBLOOM_A_MAX_FILTERS));

	ASSERT_EQ(0, create(s, &self->m, "a", 1 << 20, 4));
	ASSERT_EQ(0, get(s, &self->m, "a"));
	mem = reply_u64(s, KBLOOM_A_MEMORY);
	ASSERT_EQ(0, status(s, &self->m));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NFILTERS));
	EXPECT_EQ(mem, reply_u64(s, KBLOOM_A_MEM_NETNS));
	EXPECT_EQ(mem, reply_u64(s, KBLOOM_A_MEM_ALL));

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "a");
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, status(s, &self->m));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_MEM_NETNS));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_MEM_ALL));
}

TEST_F(lim, memory_limit_refuses_with_figures_and_changes_nothing)
{
	struct nlr *s = &self->s;
	uint64_t used;

	ASSERT_EQ(0, create(s, &self->m, "small", 1 << 16, 4));
	ASSERT_EQ(0, status(s, &self->m));
	used = reply_u64(s, KBLOOM_A_MEM_ALL);
	/* Runtime change: room for 1 MiB more, not for 8 MiB. */
	ASSERT_EQ(0, param_set("max_memory", used + (1 << 20)));
	EXPECT_EQ(-ENOMEM, create(s, &self->m, "big", 1ULL << 26, 4));
	/*
	 * 6.12 formats the figures in, whole (its formatted messages hold 80
	 * bytes); 6.1 has only static messages.
	 */
	if (strcmp(s->extack, KBLOOM_MSG_MAX_MEMORY)) {
		unsigned long long need = 0;
		char want[128];

		EXPECT_EQ(1, sscanf(s->extack, "filter needs %llu B;", &need));
		EXPECT_LT(1ULL << 23, need);
		snprintf(want, sizeof(want), "filter needs %llu B; %llu of max_memory %llu in use",
			 need, (unsigned long long)used,
			 (unsigned long long)used + (1 << 20));
		EXPECT_STREQ(want, s->extack);
	}
	EXPECT_EQ(-ENOENT, get(s, &self->m, "big"));
	ASSERT_EQ(0, status(s, &self->m));
	EXPECT_EQ(used, reply_u64(s, KBLOOM_A_MEM_ALL));
	EXPECT_EQ(used + (1 << 20), reply_u64(s, KBLOOM_A_MEM_LIMIT));
	EXPECT_EQ(0, create(s, &self->m, "fits", 1 << 20, 4));
}

TEST_F(lim, filter_limit_refuses_the_next_create)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, param_set("max_filters", 2));
	ASSERT_EQ(0, create(s, &self->m, "one", 4096, 3));
	ASSERT_EQ(0, create(s, &self->m, "two", 4096, 3));
	EXPECT_EQ(-ENOSPC, create(s, &self->m, "three", 4096, 3));
	EXPECT_EQ(2, dump_count(s, &self->m));
}

/* In a new netns: one filter of 1 Mbit; its MEM_NETNS in *@io. */
static int create_elsewhere(void *io)
{
	struct nlr c;
	struct nlr_msg *m = calloc(1, sizeof(*m));
	uint64_t *v = io;

	if (!m || unshare(CLONE_NEWNET) || nlr_open(&c) ||
	    create(&c, m, "there", 1 << 20, 4) || status(&c, m))
		return 1;
	if (reply_u32(&c, KBLOOM_A_NFILTERS) == 1)
		*v = reply_u64(&c, KBLOOM_A_MEM_NETNS);
	return 0;
}

TEST_F(lim, each_namespace_accounted_apart)
{
	struct nlr *s = &self->s;
	uint64_t child_mem = 0;
	int st;

	ASSERT_EQ(0, create(s, &self->m, "here", 1 << 16, 4));
	st = in_child(create_elsewhere, &child_mem, sizeof(child_mem));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_LT(1 << 17, child_mem);
	ASSERT_EQ(0, status(s, &self->m));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NFILTERS));
	EXPECT_GT(child_mem, reply_u64(s, KBLOOM_A_MEM_NETNS));
}

/*
 * A scalable filter at max_memory: ADD says ENOSPC naming the limit, its
 * keys are added all the same (into the last slice, as OVERFLOW), every
 * key still tests present, GET says why growth waits; with the memory
 * back it grows on by itself (no CLEAR), and an ADD succeeds again.
 */
TEST_F(lim, scalable_filter_stops_growing_at_max_memory)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint64_t used;
	int i, err = 0;

	/*
	 * Namespaces of earlier tests die asynchronously: wait until only
	 * this one holds memory, so the room below stays what it is.
	 */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, status(s, m));
		used = reply_u64(s, KBLOOM_A_MEM_ALL);
		if (used == reply_u64(s, KBLOOM_A_MEM_NETNS))
			break;
		usleep(100000);
	}
	/* Room for the filter and its first growth or two, no more. */
	ASSERT_EQ(0, param_set("max_memory", used + 64 * 1024));
	create_msg(s, m, "sc", KBLOOM_TYPE_SCALABLE, 9600, 7);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 1000);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 900000);
	ASSERT_EQ(0, nlr_send(s, m));
	for (i = 0; i < 100000 && !err; i += 1000)
		err = keys_cmd(s, m, KBLOOM_CMD_ADD, "sc", i, 1000);
	ASSERT_EQ(-ENOSPC, err);
	TH_LOG("after %d keys: %s", i, s->extack);
	EXPECT_NE(NULL, strstr(s->extack, "max_memory"));
	EXPECT_NE(NULL, strstr(s->extack, "were added"));
	/* Past the limit still: ENOSPC again, keys kept. */
	EXPECT_EQ(-ENOSPC, keys_cmd(s, m, KBLOOM_CMD_ADD, "sc", i, 1000));
	i += 1000;
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "sc", 0, 1000));
	EXPECT_EQ(1000, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "sc", i - 1000, 1000));
	EXPECT_EQ(1000, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, get(s, m, "sc"));
	EXPECT_EQ(KBLOOM_GROW_MEMORY_LIMIT,
		  reply_u32(s, KBLOOM_A_GROW_ERROR));
	EXPECT_LT(0, reply_u64(s, KBLOOM_A_OVERFLOW));
	ASSERT_EQ(0, status(s, m));
	EXPECT_GE(used + 64 * 1024, reply_u64(s, KBLOOM_A_MEM_ALL));

	/* Memory back: it grows on by itself (1 s, 2 s, ... later). */
	ASSERT_EQ(0, param_set("max_memory", self->max_memory));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get(s, m, "sc"));
		if (reply_u32(s, KBLOOM_A_GROW_ERROR) == KBLOOM_GROW_OK)
			break;
		usleep(100000);
	}
	TH_LOG("growth resumed after %d ms", i * 100);
	EXPECT_EQ(KBLOOM_GROW_OK, reply_u32(s, KBLOOM_A_GROW_ERROR));
	EXPECT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, "sc", i + 200000, 1000));

	nlr_init(s, m, s->family, KBLOOM_CMD_CLEAR, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "sc");
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, get(s, m, "sc"));
	EXPECT_EQ(KBLOOM_GROW_OK, reply_u32(s, KBLOOM_A_GROW_ERROR));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_OVERFLOW));
}

/*
 * Filter memory is charged to the caller's memory cgroup, and a cgroup too
 * small for a request refuses it: ENOMEM, nothing made, and the OOM
 * killer not called (it killed processes before the large allocations
 * were allowed to fail, as the BPF map's are).
 *
 *   /sys/fs/cgroup/kbloom-limits-PID    memory.max 48 MiB
 *     child --CREATE bloom of 64 MiB--> ENOMEM; exits by itself
 *   memory.events: oom_kill 0
 */
struct memcg_create {
	char cg[64];	/* the cgroup to join */
	int err;	/* CREATE's answer there */
	char extack[256];	/* and its message */
};

static int create_in_memcg(void *io)
{
	struct memcg_create *mc = io;
	struct nlr_msg *m = calloc(1, sizeof(*m));
	char path[128], pid_s[32];
	struct nlr c;

	snprintf(path, sizeof(path), "%s/cgroup.procs", mc->cg);
	snprintf(pid_s, sizeof(pid_s), "%d", getpid());
	if (!m || write_str(path, pid_s) || nlr_open(&c))
		return 1;
	mc->err = create(&c, m, "over-memcg", 1ULL << 29, 3);
	snprintf(mc->extack, sizeof(mc->extack), "%s", c.extack);
	return 0;
}

TEST_F(lim, memcg_smaller_than_the_request_refuses_and_kills_nobody)
{
	struct memcg_create mc = { .err = 1 };
	char *cg = mc.cg, path[128];
	int st;

	snprintf(cg, sizeof(mc.cg), "/sys/fs/cgroup/kbloom-limits-%d", getpid());
	ASSERT_EQ(0, write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, write_str(path, "48M"));
	st = in_child(create_in_memcg, &mc, sizeof(mc));
	ASSERT_NE(-1, st);
	EXPECT_TRUE(WIFEXITED(st)) TH_LOG("the child was killed by signal %d",
					  WTERMSIG(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-ENOMEM, mc.err);
	/*
	 * The message names the bytes asked for: 2^29 bits of cells and the
	 * bookkeeping (6.12 formats them in; 6.1 has the static text alone).
	 */
	if (strcmp(mc.extack, KBLOOM_MSG_NOMEM)) {
		unsigned long long need = 0;
		char want[128];

		EXPECT_EQ(1, sscanf(mc.extack,
				    "cannot allocate filter memory: filter needs %llu B",
				    &need)) TH_LOG("extack '%s'", mc.extack);
		EXPECT_LT(1ULL << 26, need);
		EXPECT_GT((1ULL << 26) + (1 << 16), need);
		snprintf(want, sizeof(want),
			 "cannot allocate filter memory: filter needs %llu B", need);
		EXPECT_STREQ(want, mc.extack);
	}
	snprintf(path, sizeof(path), "%s/memory.events", cg);
	EXPECT_EQ(0, cg_key(path, "oom_kill"));
	EXPECT_EQ(-ENOENT, get(&self->s, &self->m, "over-memcg"));
	EXPECT_EQ(0, rmdir(cg));
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * A long ADD yields the CPU between keys. A stable filter decrements
 * KBLOOM_DECREMENT_MAX cells per key, so one message of 4000 keys (as
 * many as its KEYS nest holds) keeps the kernel busy for seconds in the
 * emulated VM; a process on the same CPU that sleeps a millisecond at a
 * time must still get the CPU meanwhile (it waited for the whole ADD
 * before). Its longest wait must stay under half the ADD's: a busy host
 * that takes the vCPU away adds waits of its own, but not one as long as
 * an ADD that never yields.
 *
 *   CPU 0:  test  --ADD 4000 keys--> stable filter "slow" (P 65536, 4 bits)
 *           probe: poll(1 ms) in a loop, the longest gap between wakeups
 */
TEST_F(lim, a_long_stable_add_yields_the_cpu)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	int stop[2], res[2], st;
	double t0, took, gap = -1;
	cpu_set_t cpu0;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
	create_msg(s, m, "slow", KBLOOM_TYPE_STABLE, 1 << 20, 3);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
	nlr_put_u32(m, KBLOOM_A_DECREMENT, KBLOOM_DECREMENT_MAX);
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, pipe(stop));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pollfd p = { .fd = stop[0], .events = POLLIN };
		double last = now_ms(), max = 0, t;

		close(stop[1]);
		while (poll(&p, 1, 1) == 0) {
			t = now_ms();
			if (t - last > max)
				max = t - last;
			last = t;
		}
		_exit(write(res[1], &max, sizeof(max)) != sizeof(max));
	}
	close(stop[0]);
	usleep(200000);
	t0 = now_ms();
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, "slow", 0, 4000));
	took = now_ms() - t0;
	close(stop[1]);
	EXPECT_EQ(sizeof(gap), read(res[0], &gap, sizeof(gap)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	TH_LOG("ADD of 4000 keys took %.0f ms; the sleeper waited %.1f ms at most",
	       took, gap);
	/* Only a long ADD says anything. */
	ASSERT_LT(200, took);
	EXPECT_GT(took / 2, gap);
}

/* Threads named kworker/... now. */
static int kworkers(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[64], comm[32];
	int n = 0;
	FILE *f;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kworker/", 8))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * A thousand rings rotating every second (one owner's whole filter
 * budget, at a container's shortest interval) hold no kworker per
 * rotation: a rotation waits for its grace period with an rcu_work,
 * not a kworker asleep in synchronize_rcu() (then: 67 kworkers more on a
 * 2-CPU guest; now: 2). At most 16 more while they rotate for 10 s.
 */
TEST_F(lim, a_thousand_rotating_rings_hold_few_kworkers)
{
	int before, most = 0, n, i;
	char name[16];

	param_set("max_filters", 1024);
	before = kworkers();
	ASSERT_LT(0, before);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		create_msg(&self->s, &self->m, name, KBLOOM_TYPE_BLOOM, 4096, 3);
		nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 2);
		nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 1000);
		ASSERT_EQ(0, nlr_send(&self->s, &self->m));
	}
	for (i = 0; i < 10; i++) {
		sleep(1);
		n = kworkers();
		if (n > most)
			most = n;
	}
	TH_LOG("kworkers: %d before, at most %d while 1000 rings rotated every second",
	       before, most);
	EXPECT_LE(most - before, 16);
}

TEST_HARNESS_MAIN
