// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * digest packet HEX [digest MODE] [kernel [linear N]]
 * digest pcap FILE [digest MODE] [kernel [linear N]]
 *
 * Prints the digest of each packet, computed here by the module's own
 * digest code, or with 'kernel' by the module itself (KBLOOM_CMD_DIGEST,
 * an skb built from the bytes and digested as the hooks do), so that the
 * two can be compared byte for byte.
 *
 * Text: packet: "0x..." (MULTI: "src=0x..,dst=0x..,dport=0x..") or
 * "no digest (REASON)"; pcap: the same after the frame's index.
 * JSON: {"digest":MODE,"by":"bloomctl"|"kernel","packets":[{"index":N,
 * "digest":TEXT} or {"index":N,"skip":REASON},...]}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "commands.h"
#include "digestfmt.h"
#include "json.h"
#include "kwargs.h"
#include "pcapfile.h"
#include "pktfmt.h"
#include "print.h"
#include "util.h"

enum { D_PACKET, D_PCAP, D_DIGEST, D_KERNEL, D_LINEAR, D_NUM };

struct digest_state {
	uint32_t mode;
	bool kernel, linear_set, pcap;
	uint32_t linear;
	struct kb_nl nl;
	struct kb_out o;
	struct json j;
	int failed;		/* an error was printed */
};

/* The DIGEST reply: SKIP, or KEYS with one KEY or TUPLE. */
struct kreply {
	uint32_t skip;
	struct kb_digest d;
	int replies;
};

static int kernel_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct kreply *k = arg;
	struct nlattr *a, *v;
	int rem, rem2, n = 0;

	if (k->replies++)
		return kb_nl_fail(nl, "more than one digest reply");
	memset(&k->d, 0, sizeof(k->d));
	if (tb[KBLOOM_A_SKIP]) {
		if (nla_len(tb[KBLOOM_A_SKIP]) != 4)
			return kb_nl_fail(nl, "bad SKIP");
		k->skip = nla_get_u32(tb[KBLOOM_A_SKIP]);
		if (k->skip == KBLOOM_SKIP_NONE)
			return kb_nl_fail(nl, "SKIP 0");
		return 0;
	}
	k->skip = KBLOOM_SKIP_NONE;
	if (!tb[KBLOOM_A_KEYS])
		return kb_nl_fail(nl, "digest reply without KEYS or SKIP");
	nla_for_each_nested(a, tb[KBLOOM_A_KEYS], rem) {
		if (n++)
			return kb_nl_fail(nl, "more than one digest in KEYS");
		if (nla_type(a) == KBLOOM_KEYS_A_KEY) {
			if (nla_len(a) < 1 || nla_len(a) > KB_DIGEST_LEN_MAX)
				return kb_nl_fail(nl, "KEY of %d bytes",
						  nla_len(a));
			k->d.len = nla_len(a);
			memcpy(k->d.key, nla_data(a), k->d.len);
			continue;
		}
		if (nla_type(a) != KBLOOM_KEYS_A_TUPLE)
			return kb_nl_fail(nl, "unknown attribute %d in KEYS",
					  nla_type(a));
		nla_for_each_nested(v, a, rem2) {
			int dim = nla_type(v) - 1;

			if (dim < 0 || dim >= KB_DIGEST_DIMS ||
			    k->d.dim_len[dim] || nla_len(v) < 1 ||
			    k->d.len + nla_len(v) > KB_DIGEST_LEN_MAX)
				return kb_nl_fail(nl, "bad TUPLE dimension %d",
						  nla_type(v));
			k->d.dim_off[dim] = k->d.len;
			k->d.dim_len[dim] = nla_len(v);
			memcpy(k->d.key + k->d.len, nla_data(v), nla_len(v));
			k->d.len += nla_len(v);
		}
	}
	if (!n)
		return kb_nl_fail(nl, "empty KEYS");
	return 0;
}

/* Digest of one packet, here or by the kernel. 0, or -1 (printed). */
static int digest_one(struct digest_state *s, const uint8_t *pkt,
		      uint32_t len, uint64_t index, uint32_t *skip,
		      struct kb_digest *d)
{
	struct kreply k = { 0 };
	struct nl_msg *msg;
	int r;

	if (!s->kernel) {
		*skip = kb_digest(pkt, len, s->mode, d);
		return 0;
	}
	if (len > KBLOOM_PACKET_MAX) {
		errorf("unable to digest packet %llu in the kernel: %u bytes, more than %d",
		       (unsigned long long)index, len, KBLOOM_PACKET_MAX);
		return -1;
	}
	msg = kb_nl_msg(&s->nl, KBLOOM_CMD_DIGEST, 0, len + 256);
	kb_put(msg, KBLOOM_A_PACKET, pkt, len);
	kb_put_u32(msg, KBLOOM_A_DIGEST, s->mode);
	if (s->linear_set)
		kb_put_u32(msg, KBLOOM_A_LINEAR,
			   s->linear < len ? s->linear : len);
	r = kb_nl_request(&s->nl, msg, kernel_reply, &k);
	nlmsg_free(msg);
	if (!r && !k.replies)
		r = kb_nl_fail(&s->nl, "no digest reply");
	if (r) {
		if (s->pcap)
			kb_nl_perror(&s->nl,
				     "unable to digest packet %llu in the kernel",
				     (unsigned long long)index);
		else
			kb_nl_perror(&s->nl,
				     "unable to digest the packet in the kernel");
		return -1;
	}
	*skip = k.skip;
	*d = k.d;
	return 0;
}

static void print_one(struct digest_state *s, uint64_t index, uint32_t skip,
		      const struct kb_digest *d)
{
	const struct kb_out *o = &s->o;
	char buf[KB_DIGEST_STR_MAX];

	kb_print_obj_begin(o, NULL);
	/* the text numbers a capture's frames only */
	kb_print_u64(o, s->pcap ? KB_PRINT_ANY : KB_PRINT_JSON, "index",
		     "%llu ", index);
	if (skip) {
		kb_print_str(o, KB_PRINT_ANY, "skip", "no digest (%s)\n",
			     kb_skip_str(skip));
	} else {
		kb_digest_fmt(d, s->mode, buf, sizeof(buf));
		kb_print_str(o, KB_PRINT_ANY, "digest", "%s\n", buf);
	}
	kb_print_obj_end(o);
}

static int pcap_packet(const struct kb_pcap_packet *p, void *arg)
{
	struct digest_state *s = arg;
	struct kb_digest d;
	uint32_t skip;

	if (digest_one(s, p->l3, p->caplen, p->index, &skip, &d)) {
		s->failed = 1;
		return 1;
	}
	print_one(s, p->index, skip, &d);
	return 0;
}

int cmd_digest(int argc, char **argv)
{
	struct kwarg kw[D_NUM] = {
		[D_PACKET] = { "packet" },
		[D_PCAP] = { "pcap" },
		[D_DIGEST] = { "digest" },
		[D_KERNEL] = { "kernel", .flag = true },
		[D_LINEAR] = { "linear" },
	};
	struct digest_state s = { .mode = KBLOOM_DIGEST_SPIE };
	static uint8_t pkt[KBLOOM_PACKET_MAX];
	struct kb_pcap_counts counts;
	struct kb_digest d;
	int mode, ret = EXIT_ERROR, r;
	char why[160];
	uint32_t skip;
	size_t len;

	if (kwargs_parse(argv[0], argc, argv, 1, kw, D_NUM))
		return EXIT_ERROR;
	if (!kw[D_PACKET].val == !kw[D_PCAP].val) {
		usage_errorf(argv[0], "%s",
			     kw[D_PACKET].val ? "give 'packet HEX' or 'pcap FILE', not both" :
			     "missing 'packet HEX' or 'pcap FILE'");
		return EXIT_ERROR;
	}
	if (kw[D_DIGEST].val) {
		mode = kb_digest_parse(kw[D_DIGEST].val);
		if (mode < 0) {
			errorf("invalid digest '%s': one of %s",
			       quote(kw[D_DIGEST].val), kb_digest_list);
			return EXIT_ERROR;
		}
		s.mode = mode;
	}
	s.kernel = kw[D_KERNEL].val;
	if (kw[D_LINEAR].val) {
		if (!s.kernel) {
			usage_errorf(argv[0], "'linear' needs 'kernel'");
			return EXIT_ERROR;
		}
		if (parse_u32(kw[D_LINEAR].val, &s.linear) || !s.linear ||
		    s.linear > KBLOOM_PACKET_MAX) {
			errorf("invalid linear '%s': not an integer from 1 to %d",
			       quote(kw[D_LINEAR].val), KBLOOM_PACKET_MAX);
			return EXIT_ERROR;
		}
		s.linear_set = true;
	}
	if (kw[D_PACKET].val &&
	    kb_hex_packet_parse(kw[D_PACKET].val, pkt, sizeof(pkt), &len, why,
				sizeof(why))) {
		errorf("invalid packet '%s': %s", quote(kw[D_PACKET].val), why);
		return EXIT_ERROR;
	}
	if (s.kernel && open_netlink(&s.nl))
		return EXIT_ERROR;
	kb_out_stdout(&s.o, &s.j, opts.json);
	kb_print_obj_begin(&s.o, NULL);
	kb_print_str(&s.o, KB_PRINT_JSON, "digest", NULL,
		     kb_digest_str(s.mode));
	kb_print_str(&s.o, KB_PRINT_JSON, "by", NULL,
		     s.kernel ? "kernel" : "bloomctl");
	kb_print_arr_begin(&s.o, "packets");
	if (kw[D_PACKET].val) {
		if (digest_one(&s, pkt, len, 1, &skip, &d))
			goto out;
		print_one(&s, 1, skip, &d);
	} else {
		s.pcap = true;
		r = kb_pcap_each(kw[D_PCAP].val, pcap_packet, &s, &counts, why,
				 sizeof(why));
		if (s.failed)
			goto out;
		if (r) {
			errorf("unable to read capture '%s': %s",
			       quote(kw[D_PCAP].val), why);
			goto out;
		}
	}
	kb_print_arr_end(&s.o);
	kb_print_obj_end(&s.o);
	ret = EXIT_OK;
out:
	if (s.kernel)
		kb_nl_close(&s.nl);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_digest = {
	.name = "digest",
	.fn = cmd_digest,
	.summary = "print the digest of packets",
	.usage =
		"packet HEX [digest MODE] [kernel [linear N]]\n"
		"pcap FILE [digest MODE] [kernel [linear N]]\n",
	.help =
		"Prints the digest of a packet (HEX as for 'query') or of every IP\n"
		"packet of a capture, in MODE (default spie; see 'bloomctl attach\n"
		"--help'), computed here by the module's digest code; with 'kernel',\n"
		"by the loaded module itself, which builds an skb of the bytes (the\n"
		"first N, at least 1 and at most the packet, in its linear area with\n"
		"'linear N', the rest in page fragments) and digests it as its hooks\n"
		"do: the two outputs are the same byte for byte. A digest is printed\n"
		"as a KEY (0x...) for add, test and count, or for multi as the TUPLE\n"
		"src=0x...,dst=0x...,dport=0x...; a packet without one as \"no digest\n"
		"(REASON)\". With pcap each line starts with the frame's index. With\n"
		"-j: {\"digest\",\"by\":\"bloomctl\"|\"kernel\",\"packets\":[{\"index\",\n"
		"\"digest\"} or {\"index\",\"skip\"},...]}.\n",
};
