/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet path, for the VM tests that drive it (window_test,
 * digest_queue_test): attaching a filter, the attachment's counters, a
 * filter's windows, and a UDP packet with every header byte chosen here.
 */
#ifndef KBLOOM_TEST_PACKET_PATH_H
#define KBLOOM_TEST_PACKET_PATH_H

#include <netinet/in.h>
#include <time.h>

#include "nlraw.h"

struct window {
	uint64_t id, start, end, packets, fill;
};

/* The WINDOW_LIST of the last reply; returns how many windows. */
static inline int windows_of(struct nlr *s, struct window *w, int max)
{
	struct nlattr *list = nlr_reply_attr(s, KBLOOM_A_WINDOW_LIST), *one, *a;
	int n = 0, rem, rem2;

	if (!list)
		return -1;
	rem = list->nla_len - NLA_HDRLEN;
	for (one = (struct nlattr *)((char *)list + NLA_HDRLEN);
	     rem >= NLA_HDRLEN && n < max;
	     rem -= NLA_ALIGN(one->nla_len),
	     one = (struct nlattr *)((char *)one + NLA_ALIGN(one->nla_len))) {
		memset(&w[n], 0, sizeof(w[n]));
		rem2 = one->nla_len - NLA_HDRLEN;
		for (a = (struct nlattr *)((char *)one + NLA_HDRLEN);
		     rem2 >= NLA_HDRLEN;
		     rem2 -= NLA_ALIGN(a->nla_len),
		     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			uint64_t v;

			memcpy(&v, (char *)a + NLA_HDRLEN, 8);
			switch (a->nla_type) {
			case KBLOOM_WINDOW_A_ID: w[n].id = v; break;
			case KBLOOM_WINDOW_A_START: w[n].start = v; break;
			case KBLOOM_WINDOW_A_END: w[n].end = v; break;
			case KBLOOM_WINDOW_A_PACKETS: w[n].packets = v; break;
			case KBLOOM_WINDOW_A_FILL: w[n].fill = v; break;
			}
		}
		n++;
	}
	return n;
}

/* The ID of @name's current window (GET's WINDOW_LIST, newest first); -1: none. */
static inline int64_t newest_window(struct nlr *s, struct nlr_msg *m,
				    const char *name)
{
	struct window w[1];

	if (get(s, m, name) || windows_of(s, w, 1) < 1)
		return -1;
	return w[0].id;
}

/*
 * Waits until @name's current window is @id or later, polling every 20 ms
 * for at most 30 s; returns the current window's ID then (below @id when
 * it never came). The tests wait for rotations, not for the clock: a
 * loaded debug kernel may take seconds for a request, or run a rotation
 * late, so a fixed sleep is either too short or wasted.
 */
static inline int64_t wait_window(struct nlr *s, struct nlr_msg *m,
				  const char *name, int64_t id)
{
	struct timespec tick = { 0, 20 * 1000000L };
	int64_t cur = -1;
	int i;

	for (i = 0; i < 1500; i++) {
		cur = newest_window(s, m, name);
		if (cur < 0 || cur >= id)
			break;
		nanosleep(&tick, NULL);
	}
	return cur;
}

/* ATTACH; DIGEST 0 and FAMILY any are left out (the defaults). */
static inline int attach_full(struct nlr *s, struct nlr_msg *m,
			      const char *name, uint32_t hook, uint32_t digest,
			      uint32_t family, const char *dev, bool exist)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nlr_put_u32(m, KBLOOM_A_HOOK, hook);
	if (digest)
		nlr_put_u32(m, KBLOOM_A_DIGEST, digest);
	if (family)
		nlr_put_u32(m, KBLOOM_A_FAMILY, family);
	if (dev)
		nlr_put_str(m, KBLOOM_A_IFNAME, dev);
	if (exist)
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	return nlr_send(s, m);
}

static inline int attach(struct nlr *s, struct nlr_msg *m, const char *name,
			 uint32_t hook, uint32_t digest, const char *dev)
{
	return attach_full(s, m, name, hook, digest, KBLOOM_FAMILY_ANY, dev,
			   false);
}

static inline int detach(struct nlr *s, struct nlr_msg *m, const char *name)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_DETACH, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	return nlr_send(s, m);
}

/* A UDP packet to 127.0.0.1 with every header byte chosen here. */
static inline size_t udp_packet(uint8_t *p, uint16_t id, uint16_t sport)
{
	static const uint8_t payload[] = "kbloom digest test";
	size_t len = 20 + 8 + sizeof(payload);

	memset(p, 0, len);
	p[0] = 0x45;
	p[2] = len >> 8;
	p[3] = len & 0xff;
	p[4] = id >> 8;
	p[5] = id & 0xff;
	p[6] = 0x40;		/* DF */
	p[8] = 64;
	p[9] = IPPROTO_UDP;
	p[12] = 127; p[15] = 1;
	p[16] = 127; p[19] = 1;
	p[20] = sport >> 8;
	p[21] = sport & 0xff;
	p[22] = 0x30;		/* port 12345: nobody listens */
	p[23] = 0x39;
	p[25] = 8 + sizeof(payload);
	memcpy(p + 28, payload, sizeof(payload));
	return len;
}

static inline struct nlattr *attach_attr(struct nlr *s, uint16_t type)
{
	struct nlattr *nest = nlr_reply_attr(s, KBLOOM_A_ATTACH), *a;
	int rem;

	if (!nest)
		return NULL;
	rem = nest->nla_len - NLA_HDRLEN;
	for (a = (struct nlattr *)((char *)nest + NLA_HDRLEN); rem >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static inline uint64_t attach_u64(struct nlr *s, uint16_t type)
{
	return attr_u64(attach_attr(s, type));
}

#endif /* KBLOOM_TEST_PACKET_PATH_H */
