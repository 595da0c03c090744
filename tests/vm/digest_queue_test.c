// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path's per-CPU digest queues (kmod/digest_queue.c): a digest
 * waits in its CPU's queue until KB_BATCH (16) have come, and every read,
 * rotation, clear and detach adds what the queues hold first. So a reader
 * sees every packet that passed the hook before it began, whatever the
 * number of packets, however many CPUs sent them and whether those CPUs
 * went idle or offline since.
 *
 *   this process, pinned to a CPU             filter "q", attached at
 *   --raw UDP 127.0.0.1:N -> 127.0.0.1:12345--> OUTPUT on lo, SPIE digests
 *   a UDP socket bound to 12345 takes them: no ICMP error adds packets
 *
 * Each test sends a number of packets that leaves some queued.
 */
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vm_harness.h"
#include "nlraw.h"
#include "packet_path.h"
#include "engine/digest.h"

#define BATCH	16	/* KB_BATCH of kmod/engine/batch.h */

FIXTURE(dq) {
	struct nlr s;
	struct nlr_msg m;
	int raw;	/* sends */
	int sink;	/* receives at 127.0.0.1:12345 */
};

FIXTURE_SETUP(dq)
{
	struct sockaddr_in at = { .sin_family = AF_INET,
				  .sin_port = htons(12345) };

	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
	self->raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, self->raw);
	self->sink = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->sink);
	at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(self->sink, (struct sockaddr *)&at, sizeof(at)));
}

FIXTURE_TEARDOWN(dq)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
	close(self->raw);
	close(self->sink);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int ncpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Packet i of a test: IP ID and source port from @i, so each one differs. */
static size_t packet(uint8_t *p, uint32_t i)
{
	return udp_packet(p, i & 0xffff, 1024 + (i >> 16));
}

/* Sends packets @from .. @from + @n - 1; 0, or -1 when one was not sent. */
static int send_range(int raw, uint32_t from, uint32_t n)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint8_t pkt[128];
	size_t len;
	uint32_t i;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = from; i < from + n; i++) {
		len = packet(pkt, i);
		if (sendto(raw, pkt, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)len)
			return -1;
	}
	return 0;
}

/* How many of packets @from .. @from + @n - 1 TEST finds in @name. */
static int found(struct nlr *s, struct nlr_msg *m, const char *name,
		 uint32_t from, uint32_t n)
{
	struct kb_digest d;
	uint8_t pkt[128];
	size_t nest, len;
	uint32_t i;

	nlr_init(s, m, s->family, KBLOOM_CMD_TEST, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	for (i = from; i < from + n; i++) {
		len = packet(pkt, i);
		if (kb_digest(pkt, len, KBLOOM_DIGEST_SPIE, &d))
			return -1;
		nlr_put(m, KBLOOM_KEYS_A_KEY, d.key, d.len);
	}
	nlr_nest_end(m, nest);
	if (nlr_send(s, m))
		return -1;
	return reply_u32(s, KBLOOM_A_NPRESENT);
}

/* A filter large enough that a false positive among 1 000 keys is ~1e-9. */
static int make_q(struct nlr *s, struct nlr_msg *m, uint32_t windows,
		  uint64_t interval)
{
	create_msg(s, m, "q", KBLOOM_TYPE_BLOCKED, 1 << 22, 7);
	if (windows) {
		nlr_put_u32(m, KBLOOM_A_WINDOWS, windows);
		nlr_put_u64(m, KBLOOM_A_INTERVAL, interval);
	}
	if (nlr_send(s, m))
		return -1;
	return attach_full(s, m, "q", KBLOOM_HOOK_OUTPUT, KBLOOM_DIGEST_SPIE,
			   KBLOOM_FAMILY_IPV4, "lo", false);
}

/* GET "q": the current window's packets, and the attachment's digested. */
static int counts(struct nlr *s, struct nlr_msg *m, uint64_t *packets,
		  uint64_t *digested)
{
	struct window w[1];

	if (get(s, m, "q") || windows_of(s, w, 1) != 1)
		return -1;
	*packets = w[0].packets;
	*digested = attach_u64(s, KBLOOM_ATTACH_A_DIGESTED);
	return 0;
}

/*
 *   bursts of 1, 15, 16, 17, 100 and 1 000 packets, each followed at once
 *   by TEST of all of them --> all found; the window's packets equal
 *   the hook's digested after each
 */
TEST_F(dq, a_burst_is_found_at_once_whatever_its_length)
{
	static const uint32_t burst[] = { 1, BATCH - 1, BATCH, BATCH + 1, 100,
					  1000 };
	uint64_t packets, digested, sent = 0;
	uint32_t from = 0;
	unsigned int b;

	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	for (b = 0; b < ARRAY_SIZE(burst); b++) {
		ASSERT_EQ(0, send_range(self->raw, from, burst[b]));
		sent += burst[b];
		EXPECT_EQ((int)burst[b], found(&self->s, &self->m, "q", from,
					       burst[b]))
			TH_LOG("a burst of %u", burst[b]);
		ASSERT_EQ(0, counts(&self->s, &self->m, &packets, &digested));
		EXPECT_EQ(sent, digested);
		EXPECT_EQ(sent, packets);
		from += burst[b];
	}
}

/*
 *   3 packets from each CPU in turn (each CPU's queue holds some), then
 *   100 ms with nothing sent --> TEST finds all of them
 */
TEST_F(dq, digests_queued_on_every_cpu_are_found_after_they_go_idle)
{
	struct timespec idle = { 0, 100 * 1000000L };
	int cpu, n = ncpus();

	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(0, pin(cpu));
		ASSERT_EQ(0, send_range(self->raw, 3 * cpu, 3));
	}
	ASSERT_EQ(0, pin(0));
	nanosleep(&idle, NULL);
	EXPECT_EQ(3 * n, found(&self->s, &self->m, "q", 0, 3 * n));
}

static int cpu_online(int cpu, bool on)
{
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fprintf(f, "%d\n", on) < 0;
	return fclose(f) || err ? -1 : 0;
}

/*
 *   5 packets sent from CPU 1, CPU 1 taken offline --> TEST (from CPU 0)
 *   finds all 5; CPU 1 back online, 5 more from it --> all 10 found
 */
TEST_F(dq, a_cpu_taken_offline_keeps_its_digests)
{
	if (ncpus() < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	ASSERT_EQ(0, pin(1));
	ASSERT_EQ(0, send_range(self->raw, 0, 5));
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, cpu_online(1, false));
	EXPECT_EQ(5, found(&self->s, &self->m, "q", 0, 5));
	ASSERT_EQ(0, cpu_online(1, true));
	ASSERT_EQ(0, pin(1));
	ASSERT_EQ(0, send_range(self->raw, 5, 5));
	ASSERT_EQ(0, pin(0));
	EXPECT_EQ(10, found(&self->s, &self->m, "q", 0, 10));
}

/*
 *   3 windows of 1 s; 5 packets sent just after window N opened (N still
 *   the newest afterwards), then window N+1 opens --> QUERY finds each in
 *   window N (list entry 1) and not in N+1 (entry 0); N's packets: 5
 */
TEST_F(dq, rotation_leaves_queued_digests_in_the_window_they_passed)
{
	struct nlr *s = &self->s;
	struct window w[3];
	struct kb_digest d;
	uint8_t pkt[128];
	int64_t id = -1;
	uint64_t bits;
	size_t nest, len;
	int i, try;

	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, make_q(s, &self->m, 3, 1000));
	/* Sent inside one window: retried when a rotation came in between. */
	for (try = 0; try < 5; try++) {
		id = wait_window(s, &self->m, "q", newest_window(s, &self->m, "q") + 1);
		ASSERT_LT(0, id);
		ASSERT_EQ(0, send_range(self->raw, 100 * try, 5));
		if (newest_window(s, &self->m, "q") == id)
			break;
	}
	ASSERT_GT(5, try) TH_LOG("no 5 packets inside one 1 s window");
	ASSERT_EQ(id + 1, wait_window(s, &self->m, "q", id + 1));

	for (i = 0; i < 5; i++) {
		len = packet(pkt, 100 * try + i);
		ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_SPIE, &d));
		nlr_init(s, &self->m, s->family, KBLOOM_CMD_QUERY, 0);
		nlr_put_str(&self->m, KBLOOM_A_NAME, "q");
		nest = nlr_nest_start(&self->m, KBLOOM_A_KEYS);
		nlr_put(&self->m, KBLOOM_KEYS_A_KEY, d.key, d.len);
		nlr_nest_end(&self->m, nest);
		ASSERT_EQ(0, nlr_send(s, &self->m));
		ASSERT_EQ(id + 1, windows_of(s, w, 3) >= 2 ? (int64_t)w[0].id : -1);
		bits = 0;
		memcpy(&bits, (char *)nlr_reply_attr(s, KBLOOM_A_WINDOW_HITS) +
		       NLA_HDRLEN, 1);
		EXPECT_EQ(2, bits) TH_LOG("packet %d: windows %#llx", i,
					  (unsigned long long)bits);
	}
	ASSERT_EQ(0, get(s, &self->m, "q"));
	ASSERT_LE(2, windows_of(s, w, 3));
	EXPECT_EQ(id, (int64_t)w[1].id);
	EXPECT_EQ(5, w[1].packets);
}

/* 5 packets queued, then CLEAR --> none found afterwards. */
TEST_F(dq, clear_empties_the_queues_too)
{
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	ASSERT_EQ(0, send_range(self->raw, 0, 5));
	ASSERT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_CLEAR, "q"));
	EXPECT_EQ(0, found(&self->s, &self->m, "q", 0, 5));
}

/* 5 packets queued, then DETACH --> all 5 found afterwards. */
TEST_F(dq, detach_adds_what_is_queued)
{
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	ASSERT_EQ(0, send_range(self->raw, 0, 5));
	ASSERT_EQ(0, detach(&self->s, &self->m, "q"));
	EXPECT_EQ(5, found(&self->s, &self->m, "q", 0, 5));
}

/*
 *   a child on the last CPU sends packets without a pause, publishing how
 *   many it has sent; meanwhile, 50 times: read that count C, TEST the
 *   last 200 sent before C --> all found (none is late); then, 20 times, the filter is
 *   destroyed and made and attached again under the traffic --> every
 *   request succeeds (the debug kernel checks the rest)
 */
TEST_F(dq, under_traffic_nothing_is_late_and_destroy_is_safe)
{
	uint32_t *sent = mmap(NULL, sizeof(*sent), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t c, from, i;
	pid_t child;
	int status;

	ASSERT_NE(MAP_FAILED, sent);
	*sent = 0;
	ASSERT_EQ(0, make_q(&self->s, &self->m, 0, 0));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pin(ncpus() - 1);
		for (i = 0; i < 1000000; i++) {
			if (send_range(self->raw, i, 1))
				_exit(1);
			__atomic_store_n(sent, i + 1, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	pin(0);
	while (!__atomic_load_n(sent, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (i = 0; i < 50; i++) {
		c = __atomic_load_n(sent, __ATOMIC_ACQUIRE);
		from = c > 200 ? c - 200 : 0;
		EXPECT_EQ((int)(c - from), found(&self->s, &self->m, "q", from,
						 c - from))
			TH_LOG("round %u: packets %u to %u", i, from, c);
	}
	/*
	 * Another filter at the same hook keeps netfilter's count of hooks
	 * there above 0, so the cycles below never patch the kernel's text
	 * (the static key in NF_HOOK): an emulated guest (QEMU TCG, Debian's
	 * 6.12) running the patched code on the other CPU took the patch's
	 * int3 as a fatal trap in raw_sendmsg.
	 */
	create_msg(&self->s, &self->m, "keep", KBLOOM_TYPE_BLOCKED, 1 << 12, 3);
	ASSERT_EQ(0, nlr_send(&self->s, &self->m));
	ASSERT_EQ(0, attach_full(&self->s, &self->m, "keep", KBLOOM_HOOK_OUTPUT,
				 KBLOOM_DIGEST_SPIE, KBLOOM_FAMILY_IPV4, "lo",
				 false));
	for (i = 0; i < 20; i++) {
		EXPECT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_DESTROY, "q"));
		EXPECT_EQ(0, make_q(&self->s, &self->m, i % 2 ? 2 : 0, 10));
	}
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	munmap(sent, sizeof(*sent));
}

TEST_HARNESS_MAIN
