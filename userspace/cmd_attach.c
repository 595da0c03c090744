// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * attach NAME hook HOOK [dev IFACE] [family ipv4|ipv6|any] digest MODE
 * attach NAME hook ingress|egress dev IFACE [family ...] digest MODE
 * attach NAME hook postrouting [dev IFACE]     (a transforms table)
 *
 * Keywords in any order, each at most once. The kernel checks the rest
 * (one attachment per filter, MULTI needs a 3-dimension multi filter).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "kwargs.h"
#include "pktfmt.h"
#include "types.h"
#include "util.h"

enum { A_HOOK, A_DEV, A_FAMILY, A_DIGEST, A_NUM };

/* Device names as the kernel takes them (dev_valid_name). */
static bool valid_ifname(const char *s, const char **why)
{
	size_t len = strlen(s);

	if (!len || len >= KBLOOM_IFNAME_MAX) {
		*why = len ? "longer than 15 bytes" : "empty";
		return false;
	}
	if (!strcmp(s, ".") || !strcmp(s, "..")) {
		*why = "not a device name";
		return false;
	}
	for (; *s; s++) {
		if (*s == '/' || *s == ':' || *s <= ' ' || *s == 0x7f) {
			*why = "holds '/', ':', a blank or a control character";
			return false;
		}
	}
	return true;
}

/*
 * When the kernel gave no message: a clearer text than the errno's for
 * the refusals attach can meet.
 */
static void explain(struct kb_nl *nl, const char *name, int digest)
{
	struct kb_nl_error *e = &nl->error;
	struct kb_nl_error saved = *e;
	struct kb_desc d;

	if (e->why[0] || e->kmsg[0])
		return;
	if (e->err == EBUSY) {
		snprintf(e->why, sizeof(e->why),
			 "already attached (see 'bloomctl show %s'; detach it first)",
			 quote(name));
		return;
	}
	if (e->err != EINVAL)
		return;
	/* Without a kernel message: say what the uapi requires. */
	if (kb_desc_get(nl, name, &d)) {
		*e = saved;
		return;
	}
	*e = saved;
	if (digest == KBLOOM_DIGEST_MULTI &&
	    (!kb_utype_tuples(d.p.type) || d.dims.n != 3))
		snprintf(e->why, sizeof(e->why),
			 "digest multi needs a multi filter of 3 dimensions (src, dst, dst port)");
	else if (digest != KBLOOM_DIGEST_MULTI &&
		 kb_utype_tuples(d.p.type))
		snprintf(e->why, sizeof(e->why),
			 "a multi filter takes digest multi only");
}

/* Whether filter @name is a transforms table (false when unknown). */
static bool is_transforms(const char *name)
{
	struct kb_desc d;
	struct kb_nl nl;
	bool yes;

	if (open_netlink(&nl))
		return false;
	yes = !kb_desc_get(&nl, name, &d) &&
	      kb_utype_records(d.p.type);
	kb_nl_close(&nl);
	return yes;
}

int cmd_attach(int argc, char **argv)
{
	struct kwarg kw[A_NUM] = {
		[A_HOOK] = { "hook" },
		[A_DEV] = { "dev" },
		[A_FAMILY] = { "family" },
		[A_DIGEST] = { "digest" },
	};
	int hook, family = KBLOOM_FAMILY_ANY, digest, r;
	const char *name, *why;
	struct nl_msg *msg;
	struct kb_nl nl;

	if (argc < 2) {
		usage_errorf(argv[0], "missing filter NAME");
		return EXIT_ERROR;
	}
	name = argv[1];
	if (!check_name(name))
		return EXIT_ERROR;
	if (kwargs_parse(argv[0], argc, argv, 2, kw, A_NUM))
		return EXIT_ERROR;
	if (!kw[A_HOOK].val) {
		usage_errorf(argv[0], "missing 'hook HOOK'");
		return EXIT_ERROR;
	}
	/* A transforms table takes no digest; every other filter needs one. */
	if (!kw[A_DIGEST].val && !is_transforms(name)) {
		usage_errorf(argv[0], "missing 'digest MODE'");
		return EXIT_ERROR;
	}
	hook = kb_hook_parse(kw[A_HOOK].val);
	if (hook < 0) {
		errorf("invalid hook '%s': one of %s", quote(kw[A_HOOK].val),
		       kb_hook_list);
		return EXIT_ERROR;
	}
	digest = kw[A_DIGEST].val ? kb_digest_parse(kw[A_DIGEST].val) : 0;
	if (digest < 0) {
		errorf("invalid digest '%s': one of %s",
		       quote(kw[A_DIGEST].val), kb_digest_list);
		return EXIT_ERROR;
	}
	if (kw[A_FAMILY].val) {
		family = kb_family_parse(kw[A_FAMILY].val);
		if (family < 0) {
			errorf("invalid family '%s': one of %s",
			       quote(kw[A_FAMILY].val), kb_family_list);
			return EXIT_ERROR;
		}
	}
	if ((hook == KBLOOM_HOOK_INGRESS || hook == KBLOOM_HOOK_EGRESS) &&
	    !kw[A_DEV].val) {
		usage_errorf(argv[0], "hook %s needs 'dev IFACE': the device whose hook it is",
			     kw[A_HOOK].val);
		return EXIT_ERROR;
	}
	if (kw[A_DEV].val && !valid_ifname(kw[A_DEV].val, &why)) {
		errorf("invalid dev '%s': %s", quote(kw[A_DEV].val), why);
		return EXIT_ERROR;
	}

	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_ATTACH, 0, 0);
	kb_put_name(msg, name);
	if (opts.exist)
		kb_put_u32(msg, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	kb_put_u32(msg, KBLOOM_A_HOOK, hook);
	if (digest)
		kb_put_u32(msg, KBLOOM_A_DIGEST, digest);
	kb_put_u32(msg, KBLOOM_A_FAMILY, family);
	if (kw[A_DEV].val)
		kb_put(msg, KBLOOM_A_IFNAME, kw[A_DEV].val,
		       strlen(kw[A_DEV].val) + 1);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r) {
		explain(&nl, name, digest);
		kb_nl_perror(&nl, "unable to attach filter '%s' to hook %s",
			     quote(name), kw[A_HOOK].val);
	}
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_attach = {
	.name = "attach",
	.fn = cmd_attach,
	.summary = "record packet digests into a filter",
	.usage =
		"NAME hook HOOK [dev IFACE] [family ipv4|ipv6|any] digest MODE\n"
		"NAME hook ingress|egress dev IFACE [family ipv4|ipv6|any] digest MODE\n"
		"NAME hook postrouting [dev IFACE] [family ipv4|ipv6|any]   (transforms)\n",
	.help =
		"Attaches filter NAME to a netfilter hook of its network namespace:\n"
		"every IPv4 and IPv6 packet reaching the hook is reduced to a key by\n"
		"the digest mode and added to the filter (to its current window when\n"
		"the filter is time-paged: see 'create ... windows W interval D').\n"
		"Keywords in any order, each at most once:\n"
		"  hook HOOK      prerouting, input, forward, output or postrouting; the\n"
		"                 hook runs before defragmentation and conntrack (at\n"
		"                 postrouting: last), so packets are seen as on the wire;\n"
		"                 or ingress or egress, the device's own hooks (netdev\n"
		"                 family; dev IFACE required): every IPv4 and IPv6\n"
		"                 frame IFACE receives or sends, first of its hooks, so\n"
		"                 also the flows an nftables flowtable forwards past\n"
		"                 prerouting, forward and postrouting. Such an\n"
		"                 attachment goes when IFACE is deleted or moves to\n"
		"                 another namespace (monitor prints it); a rename keeps it;\n"
		"                 or bridge-forward, the bridge family's forward hook:\n"
		"                 every IPv4 and IPv6 frame a bridge of the namespace\n"
		"                 forwards from port to port (dev IFACE: from that port)\n"
		"  dev IFACE      only packets whose input device (output device at\n"
		"                 output and postrouting) is IFACE\n"
		"  family FAMILY  ipv4, ipv6 or any (default)\n"
		"  digest MODE    what a packet is reduced to:\n"
		"    spie         its invariant bytes: the IPv4 header with TOS, TTL and\n"
		"                 checksum zeroed, without options, and the first 8\n"
		"                 payload bytes (28 bytes); the IPv6 header with traffic\n"
		"                 class and hop limit zeroed and 8 bytes (48). A router\n"
		"                 that decrements the TTL records the digest that the\n"
		"                 receiver computes from the packet it got.\n"
		"    flow         protocol, addresses and ports (13 or 37 bytes); with a\n"
		"                 counting filter, 'count' then gives packets per flow\n"
		"    src, dst     the source or the destination address\n"
		"    multi        a tuple for a multi filter of 3 dimensions: source\n"
		"                 address, destination address, destination port\n"
		"A TCP or UDP GSO super-packet is digested as its wire segments or\n"
		"datagrams, checksums as the wire carries them; so is a tunnel's\n"
		"(IPIP, 6in4, GRE, VXLAN) carrying TCP, and a segment of one GRO merged\n"
		"with DF outside, whose outer ID GRO did not check, also in its unsure\n"
		"form (outer ID zeroed, reserved flag set). Packets without a\n"
		"digest are counted by reason: short, malformed, fragment (later\n"
		"fragments, flow and multi only) and gso (other GSO packets: UDP GRO's\n"
		"fraglist kind). A filter has one attachment at most; it goes\n"
		"with the filter (destroy) or its namespace; with the global option\n"
		"--exist the very attachment asked for (hook, dev, family, digest),\n"
		"made already, is success, and one that differs is refused naming it.\n"
		"'show' prints it with its counters and, as 'bypass:', what may carry\n"
		"packets past it now, learnt from the kernel: a flowtable (at\n"
		"prerouting, forward, postrouting), an XDP program, tc hardware\n"
		"offload; 'bloomctl digest' prints a packet's digest.\n"
		"A transforms table is attached at postrouting, after NAT, without a\n"
		"digest: each IPv4 or IPv6 packet whose conntrack entry has NAT gives\n"
		"one record per flow direction and window, as it left (AFTER) and as\n"
		"it arrived (BEFORE): addresses and ports, or the ICMP echo\n"
		"identifier (IPv6: the addresses folded, and each address it rewrote,\n"
		"both forms, in an address record).\n"
		"The same attachment hooks input too: each IPIP, 6in4 (sit), GRE,\n"
		"VXLAN or GENEVE (without options) packet this router decapsulates\n"
		"gives a record of its outer header (addresses, IP ID, GRE's first\n"
		"optional word: checksum, key or sequence number; VXLAN's and\n"
		"GENEVE's UDP ports and checksum, over IPv4; IPv6 in GRE too),\n"
		"per packet, and so does each 4in6 or 6in6 (ip6tnl), IPv4 or IPv6 in\n"
		"GRE (ip6gre), VXLAN or GENEVE packet over IPv6 (the outer addresses\n"
		"folded, flow label, encapsulation limit; each outer address once a\n"
		"window in an address record; VXLAN's and GENEVE's UDP checksum in a\n"
		"second, more record); packets GRO merged before input give their first one's\n"
		"and an arrival record (merged by GRO). A packet that came out of\n"
		"IPsec or a tunnel device no\n"
		"record undoes (geneve, ip6tnl or ip6gre unrecorded, gretap, wireguard, xfrm,\n"
		"vti, bareudp, gtp, ipip or gre in UDP, tun or tap, vxlan unrecorded),\n"
		"IPv4 or IPv6, gives an arrival record per flow direction and window,\n"
		"naming the IPsec state or the device: 'trace' says it is not\n"
		"traceable past this router (family ipv6: those of IPv6 only; ipv4:\n"
		"no IPv6 hook).\n"
		"Other packets (and ICMP errors about a flow) are counted as\n"
		"untransformed; a record that finds no free cell\n"
		"in its lines is not made and its packet is counted as full. Prints\n"
		"nothing on success.\n",
};
