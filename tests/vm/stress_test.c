// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once, for KBLOOM_STRESS_SECONDS (default 20), in the VM:
 *
 *   adder x2  --ADD own keys, DEL some, TEST every kept key-->  "s" (counting)
 *   pinger    --raw UDP to 127.0.0.1--> lo --OUTPUT--> "t" (windows 4 x 200 ms)
 *             ADD/TEST keys of its own to "t"; detach and re-attach now and then
 *   churner   --CREATE/DESTROY/MERGE/ESTIMATE/EXPORT/IMPORT/STATUS--> "c*"
 *   nsjumper  --unshare(NEWNET), CREATE + ATTACH, exit--> netns dies attached
 *
 * No key whose ADD completed (and that was not deleted) may ever test
 * absent; every request gets an answer. The guest kernel log must stay
 * clean (scripts/vm fails the run on any report).
 */
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "vm_harness.h"
#include "nlraw.h"

/* Operations done, per kind, shared by the workers (one mmap). */
static struct ops {
	long adds, dels, tests, packets, reattach, churn, netns;
} *ops;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int send_keys(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
		     const char *name, int who, int first, int n)
{
	char key[32];
	size_t nest;
	int i;

	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	for (i = first; i < first + n; i++) {
		snprintf(key, sizeof(key), "w%d-%d", who, i);
		nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
	}
	nlr_nest_end(m, nest);
	return nlr_send(s, m);
}

/* Adds batches of keys, deletes every 4th batch, tests every kept key. */
static int adder(int who, double until)
{
	static struct nlr s;
	static struct nlr_msg m;
	int batch = 0, b, n, fn = 0;

	if (nlr_open(&s))
		return 10;
	while (now() < until && !fn) {
		if (send_keys(&s, &m, KBLOOM_CMD_ADD, "s", who, batch * 50, 50))
			return 11;
		__atomic_add_fetch(&ops->adds, 50, __ATOMIC_RELAXED);
		if (batch % 4 == 3) {
			if (send_keys(&s, &m, KBLOOM_CMD_DEL, "s", who, batch * 50, 50))
				return 12;
			__atomic_add_fetch(&ops->dels, 50, __ATOMIC_RELAXED);
		}
		batch++;
		for (b = 0; b < batch; b++) {
			if (b % 4 == 3)
				continue;
			if (send_keys(&s, &m, KBLOOM_CMD_TEST, "s", who, b * 50, 50))
				return 13;
			__atomic_add_fetch(&ops->tests, 50, __ATOMIC_RELAXED);
			n = reply_u32(&s, KBLOOM_A_NPRESENT);
			if (n != 50) {
				fprintf(stderr, "adder %d: batch %d: %d of 50 present\n",
					who, b, n);
				fn = 1;
			}
		}
		if (batch > 60)
			batch = 0;	/* start over: the keys stay */
	}
	return fn ? 1 : 0;
}

static int attach_t(struct nlr *s, struct nlr_msg *m)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "t");
	nlr_put_u32(m, KBLOOM_A_HOOK, KBLOOM_HOOK_OUTPUT);
	nlr_put_u32(m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	nlr_put_str(m, KBLOOM_A_IFNAME, "lo");
	return nlr_send(s, m);
}

/* Traffic into the attached, rotating "t"; its own keys must stay found. */
static int pinger(double until)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	static struct nlr s;
	static struct nlr_msg m;
	char payload[32] = "stress";
	int fd, i = 0, k = 0;

	if (nlr_open(&s))
		return 20;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 21;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (now() < until) {
		if (sendto(fd, payload, sizeof(payload), 0,
			   (struct sockaddr *)&to, sizeof(to)) > 0)
			__atomic_add_fetch(&ops->packets, 1, __ATOMIC_RELAXED);
		if (++i % 200 == 0) {
			nlr_init(&s, &m, s.family, KBLOOM_CMD_DETACH, 0);
			nlr_put_str(&m, KBLOOM_A_NAME, "t");
			if (nlr_send(&s, &m) || attach_t(&s, &m))
				return 22;
			__atomic_add_fetch(&ops->reattach, 1, __ATOMIC_RELAXED);
		}
		if (i % 50 == 0) {
			/* Added, then tested at once: within 4 windows of 200 ms. */
			if (send_keys(&s, &m, KBLOOM_CMD_ADD, "t", 9, k, 10) ||
			    send_keys(&s, &m, KBLOOM_CMD_TEST, "t", 9, k, 10))
				return 23;
			if (reply_u32(&s, KBLOOM_A_NPRESENT) != 10) {
				fprintf(stderr, "pinger: keys of a window lost\n");
				return 2;
			}
			k += 10;
		}
	}
	close(fd);
	return 0;
}

static void churn_once(struct nlr *s, struct nlr_msg *m, int i)
{
	char name[16];
	uint8_t hkey[16] = { 7 }, cells[512] = { 0 };

	snprintf(name, sizeof(name), "c%d", i % 5);
	switch (i % 8) {
	case 0:
		create_msg(s, m, name, KBLOOM_TYPE_BLOOM, 4096, 3);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_send(s, m);
		break;
	case 1:
		send_keys(s, m, KBLOOM_CMD_ADD, name, 5, i, 20);
		break;
	case 2:
		nlr_init(s, m, s->family, KBLOOM_CMD_MERGE, 0);
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_str(m, KBLOOM_A_SRC, "c0");
		nlr_send(s, m);
		break;
	case 3:
		nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
		nlr_put_str(m, KBLOOM_A_NAME, i % 16 < 8 ? name : "t");
		nlr_send(s, m);
		break;
	case 4:
		create_msg(s, m, "cl", KBLOOM_TYPE_BLOOM, 4096, 3);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		if (!nlr_send(s, m)) {
			nlr_init(s, m, s->family, KBLOOM_CMD_IMPORT, 0);
			nlr_put_str(m, KBLOOM_A_NAME, "cl");
			nlr_put_u64(m, KBLOOM_A_OFFSET, 0);
			nlr_put(m, KBLOOM_A_CELLS, cells, sizeof(cells));
			nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
			nlr_send(s, m);
		}
		break;
	case 5:
		nlr_init(s, m, s->family, KBLOOM_CMD_ESTIMATE, 0);
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_str(m, KBLOOM_A_SRC, "c1");
		nlr_send(s, m);
		nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
		nlr_send(s, m);
		break;
	case 6:
		nlr_init(s, m, s->family, KBLOOM_CMD_DESTROY, 0);
		nlr_put_str(m, KBLOOM_A_NAME, i % 3 ? name : "cl");
		nlr_send(s, m);
		break;
	case 7:
		nlr_init(s, m, s->family, KBLOOM_CMD_GET, NLM_F_DUMP);
		nlr_send(s, m);
		break;
	}
}

static int churner(double until)
{
	static struct nlr s;
	static struct nlr_msg m;
	int i = 0;

	if (nlr_open(&s))
		return 30;
	while (now() < until) {
		churn_once(&s, &m, i++);
		__atomic_add_fetch(&ops->churn, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Namespaces born with an attached, rotating filter and left to die. */
static int nsjumper(double until)
{
	while (now() < until) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 40;
		if (pid == 0) {
			struct nlr s;
			struct nlr_msg *m = calloc(1, sizeof(*m));

			if (!m || unshare(CLONE_NEWNET) || nlr_open(&s))
				_exit(41);
			create_msg(&s, m, "t", KBLOOM_TYPE_BLOOM, 1 << 16, 4);
			nlr_put_u32(m, KBLOOM_A_WINDOWS, 3);
			nlr_put_u64(m, KBLOOM_A_INTERVAL, 20);
			if (nlr_send(&s, m) || attach_t(&s, m))
				_exit(42);
			usleep(30000);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || WEXITSTATUS(st))
			return 43;
		__atomic_add_fetch(&ops->netns, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

FIXTURE(stress) {
};

FIXTURE_SETUP(stress)
{
}

FIXTURE_TEARDOWN(stress)
{
}

/*
 * The harness's limit (2 hours) is above any KBLOOM_STRESS_SECONDS the
 * soak (scripts/soak, make soak) asks for; the tiers' 20 s end long before.
 */
TEST_F_TIMEOUT(stress, no_false_negative_no_report_under_load, 7200)
{
	const char *env = getenv("KBLOOM_STRESS_SECONDS");
	double secs = env ? atof(env) : 20, until;
	static struct nlr s;
	static struct nlr_msg m;
	pid_t pids[5];
	int i, st, bad = 0;

	ops = mmap(NULL, sizeof(*ops), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ops);
	ASSERT_EQ(0, nlr_open(&s));
	create_msg(&s, &m, "s", KBLOOM_TYPE_COUNTING, 1 << 20, 4);
	nlr_put_u32(&m, KBLOOM_A_COUNTER_BITS, 8);
	ASSERT_EQ(0, nlr_send(&s, &m));
	create_msg(&s, &m, "t", KBLOOM_TYPE_BLOCKED, 1 << 20, 6);
	nlr_put_u32(&m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(&m, KBLOOM_A_INTERVAL, 200);
	ASSERT_EQ(0, nlr_send(&s, &m));
	ASSERT_EQ(0, attach_t(&s, &m));

	until = now() + secs;
	for (i = 0; i < 5; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0)
			_exit(i < 2 ? adder(i, until) : i == 2 ? pinger(until) :
			      i == 3 ? churner(until) : nsjumper(until));
	}
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			TH_LOG("worker %d exited %d", i, WEXITSTATUS(st));
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("%.0f s: %ld keys added, %ld deleted, %ld tested; %ld packets digested while rotating, %ld re-attaches; %ld churn requests; %ld namespaces died attached",
	       secs, ops->adds, ops->dels, ops->tests, ops->packets,
	       ops->reattach, ops->churn, ops->netns);
	ASSERT_EQ(0, get(&s, &m, "t"));
	nlr_init(&s, &m, s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	EXPECT_EQ(0, nlr_send(&s, &m));
	close(s.fd);
}

/*
 * DETACH and DESTROY while another CPU's packets run through the hook:
 * nf_unregister_net_hook() takes a hook out but does not wait for the
 * calls in flight, so the attachment must outlive them by a grace period
 * (KASAN, in the debug tier, reported a use-after-free in kb_hook before).
 *
 *   sender (its own process) --UDP to 127.0.0.1, no pause--> lo
 *        --OUTPUT--> "d"
 *   this process: 300 x (DETACH, ATTACH), then 100 x (DESTROY, CREATE,
 *   ATTACH); every request answered 0, the guest's log clean.
 */
static int attach_d(struct nlr *s, struct nlr_msg *m)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "d");
	nlr_put_u32(m, KBLOOM_A_HOOK, KBLOOM_HOOK_OUTPUT);
	nlr_put_u32(m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	return nlr_send(s, m);
}

static int create_d(struct nlr *s, struct nlr_msg *m)
{
	create_msg(s, m, "d", KBLOOM_TYPE_BLOOM, 1 << 16, 4);
	nlr_put_u32(m, KBLOOM_A_WINDOWS, 2);
	nlr_put_u64(m, KBLOOM_A_INTERVAL, 100);
	return nlr_send(s, m);
}

TEST_F_TIMEOUT(stress, detach_and_destroy_under_traffic_from_another_cpu, 3600)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	static struct nlr s;
	static struct nlr_msg m;
	int i, st, bad = 0;
	pid_t pid;

	ASSERT_EQ(0, nlr_open(&s));
	/*
	 * Another filter attached at OUTPUT all along keeps netfilter's
	 * static keys on: each first hook and last unhook patches the
	 * packet path's code, which QEMU's TCG may run stale on the other
	 * vCPU ("Oops: int3" in __ip_local_out; tests/vm/run says the same of
	 * the timestamp key). The race under test is the attachment's, not
	 * the emulator's.
	 */
	create_msg(&s, &m, "keep", KBLOOM_TYPE_BLOOM, 1 << 16, 4);
	ASSERT_EQ(0, nlr_send(&s, &m));
	nlr_init(&s, &m, s.family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(&m, KBLOOM_A_NAME, "keep");
	nlr_put_u32(&m, KBLOOM_A_HOOK, KBLOOM_HOOK_OUTPUT);
	nlr_put_u32(&m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	ASSERT_EQ(0, nlr_send(&s, &m));
	ASSERT_EQ(0, create_d(&s, &m));
	ASSERT_EQ(0, attach_d(&s, &m));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		for (;;)
			sendto(fd, "d", 1, 0, (struct sockaddr *)&to, sizeof(to));
	}
	for (i = 0; i < 300; i++) {
		nlr_init(&s, &m, s.family, KBLOOM_CMD_DETACH, 0);
		nlr_put_str(&m, KBLOOM_A_NAME, "d");
		bad += nlr_send(&s, &m) != 0;
		bad += attach_d(&s, &m) != 0;
	}
	for (i = 0; i < 100; i++) {
		nlr_init(&s, &m, s.family, KBLOOM_CMD_DESTROY, 0);
		nlr_put_str(&m, KBLOOM_A_NAME, "d");
		bad += nlr_send(&s, &m) != 0;
		bad += create_d(&s, &m) != 0;
		bad += attach_d(&s, &m) != 0;
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, bad);
	nlr_init(&s, &m, s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	EXPECT_EQ(0, nlr_send(&s, &m));
	close(s.fd);
}

TEST_HARNESS_MAIN
