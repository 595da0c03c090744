// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "pktfmt.h"
#include "textutil.h"

static const char *const hook_names[KBLOOM_HOOK_MAX + 1] = {
	[KBLOOM_HOOK_PREROUTING] = "prerouting",
	[KBLOOM_HOOK_INPUT] = "input",
	[KBLOOM_HOOK_FORWARD] = "forward",
	[KBLOOM_HOOK_OUTPUT] = "output",
	[KBLOOM_HOOK_POSTROUTING] = "postrouting",
	[KBLOOM_HOOK_INGRESS] = "ingress",
	[KBLOOM_HOOK_EGRESS] = "egress",
	[KBLOOM_HOOK_BRIDGE_FORWARD] = "bridge-forward",
};

static const char *const family_names[KBLOOM_FAMILY_MAX + 1] = {
	[KBLOOM_FAMILY_ANY] = "any",
	[KBLOOM_FAMILY_IPV4] = "ipv4",
	[KBLOOM_FAMILY_IPV6] = "ipv6",
};

static const char *const digest_names[KBLOOM_DIGEST_MAX + 1] = {
	[KBLOOM_DIGEST_SPIE] = "spie",
	[KBLOOM_DIGEST_FLOW] = "flow",
	[KBLOOM_DIGEST_SRC] = "src",
	[KBLOOM_DIGEST_DST] = "dst",
	[KBLOOM_DIGEST_MULTI] = "multi",
};

static const char *const skip_names[KBLOOM_SKIP_MAX + 1] = {
	[KBLOOM_SKIP_NONE] = "none",
	[KBLOOM_SKIP_SHORT] = "short",
	[KBLOOM_SKIP_MALFORMED] = "malformed",
	[KBLOOM_SKIP_FRAGMENT] = "fragment",
	[KBLOOM_SKIP_GSO] = "gso",
	[KBLOOM_SKIP_UNTRANSFORMED] = "untransformed",
	[KBLOOM_SKIP_FULL] = "full",
};

static const char *const bypass_names[] = {
	"flowtable",	/* KBLOOM_BYPASS_FLOWTABLE */
	"xdp",		/* KBLOOM_BYPASS_XDP */
	"hw-offload",	/* KBLOOM_BYPASS_HW_OFFLOAD */
};

const char kb_hook_list[] =
	"prerouting, input, forward, output, postrouting, ingress, egress, bridge-forward";
const char kb_family_list[] = "ipv4, ipv6, any";
const char kb_digest_list[] = "spie, flow, src, dst, multi";

#define NAME_OF(tab, v) ((v) < sizeof(tab) / sizeof(tab[0]) ? tab[v] : NULL)

const char *kb_hook_name(uint32_t hook)
{
	return NAME_OF(hook_names, hook);
}

const char *kb_family_name(uint32_t family)
{
	return NAME_OF(family_names, family);
}

const char *kb_digest_name(uint32_t mode)
{
	return NAME_OF(digest_names, mode);
}

const char *kb_skip_name(uint32_t skip)
{
	return NAME_OF(skip_names, skip);
}

const char *kb_bypass_name(uint32_t bit)
{
	return NAME_OF(bypass_names, bit);
}

static const char *or_number(const char *name, const char *what, uint32_t v)
{
	static __thread char bufs[4][24];
	static __thread unsigned int next;
	char *buf;

	if (name)
		return name;
	buf = bufs[next++ % 4];
	snprintf(buf, sizeof(bufs[0]), "%s-%u", what, v);
	return buf;
}

const char *kb_hook_str(uint32_t hook)
{
	return or_number(kb_hook_name(hook), "hook", hook);
}

const char *kb_family_str(uint32_t family)
{
	return or_number(kb_family_name(family), "family", family);
}

const char *kb_digest_str(uint32_t mode)
{
	return or_number(kb_digest_name(mode), "digest", mode);
}

const char *kb_skip_str(uint32_t skip)
{
	return or_number(kb_skip_name(skip), "skip", skip);
}

const char *kb_bypass_str(uint32_t bit)
{
	return or_number(kb_bypass_name(bit), "bypass", bit);
}

static int parse_in(const char *const *tab, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tab[i] && !strcmp(tab[i], s))
			return i;
	return -1;
}

#define PARSE_IN(tab, s) parse_in(tab, sizeof(tab) / sizeof(tab[0]), s)

int kb_hook_parse(const char *s)
{
	return PARSE_IN(hook_names, s);
}

int kb_family_parse(const char *s)
{
	return PARSE_IN(family_names, s);
}

int kb_digest_parse(const char *s)
{
	return PARSE_IN(digest_names, s);
}

static bool separator(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':';
}

int kb_hex_packet_parse(const char *s, uint8_t *out, size_t cap, size_t *len,
			char *why, size_t whylen)
{
	const char *p = s;
	size_t n = 0;
	int hi, lo;

	while (separator(*p))
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;;) {
		while (separator(*p))
			p++;
		if (!*p)
			break;
		hi = kb_hexval(p[0]);
		if (hi < 0) {
			snprintf(why, whylen,
				 "'%c' at offset %zu is not a hex digit",
				 p[0], (size_t)(p - s));
			return -1;
		}
		lo = kb_hexval(p[1]);
		if (lo < 0) {
			if (!p[1] || separator(p[1]))
				snprintf(why, whylen,
					 "a lone hex digit at offset %zu: a byte is two digits",
					 (size_t)(p - s));
			else
				snprintf(why, whylen,
					 "'%c' at offset %zu is not a hex digit",
					 p[1], (size_t)(p + 1 - s));
			return -1;
		}
		if (n == cap) {
			snprintf(why, whylen, "longer than %zu bytes", cap);
			return -1;
		}
		out[n++] = hi << 4 | lo;
		p += 2;
	}
	if (!n) {
		snprintf(why, whylen, "no bytes");
		return -1;
	}
	*len = n;
	return 0;
}

void kb_hex_str(const uint8_t *b, size_t len, char *buf, size_t buflen)
{
	size_t i, o;

	if (buflen < 3) {
		if (buflen)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, "0x", 2);
	o = 2;
	for (i = 0; i < len && o + 2 < buflen; i++, o += 2)
		snprintf(buf + o, 3, "%02x", b[i]);
	buf[o] = '\0';
}

static const char *proto_name(uint8_t proto)
{
	switch (proto) {
	case 1:
		return "ICMP";
	case 2:
		return "IGMP";
	case 6:
		return "TCP";
	case 17:
		return "UDP";
	case 33:
		return "DCCP";
	case 47:
		return "GRE";
	case 50:
		return "ESP";
	case 51:
		return "AH";
	case 58:
		return "ICMPv6";
	case 132:
		return "SCTP";
	case 136:
		return "UDP-Lite";
	}
	return NULL;
}

static bool has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 ||
	       proto == 136;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* "10.0.0.1:80" or "[fd00::1]:80" (no port when @port < 0). */
static void addr_str(int af, const uint8_t *a, int port, char *buf,
		     size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(af, a, ip, sizeof(ip));
	if (port < 0)
		snprintf(buf, len, "%s", ip);
	else if (af == AF_INET6)
		snprintf(buf, len, "[%s]:%d", ip, port);
	else
		snprintf(buf, len, "%s:%d", ip, port);
}

static const char *icmp_type(bool v6, uint8_t type)
{
	if (!v6) {
		switch (type) {
		case 0: return "echo reply";
		case 3: return "unreachable";
		case 8: return "echo request";
		case 11: return "time exceeded";
		}
	} else {
		switch (type) {
		case 1: return "unreachable";
		case 3: return "time exceeded";
		case 128: return "echo request";
		case 129: return "echo reply";
		case 133: return "router solicitation";
		case 134: return "router advertisement";
		case 135: return "neighbor solicitation";
		case 136: return "neighbor advertisement";
		case 143: return "MLDv2 report";
		}
	}
	return NULL;
}

void kb_pkt_describe(const uint8_t *pkt, size_t caplen, char *buf,
		     size_t len)
{
	char src[64], dst[64], pname[16], extra[64] = "";
	const uint8_t *l4 = NULL;
	size_t hlen, l4len = 0;
	uint32_t fragoff = 0;
	bool v6, first = true;
	uint8_t proto;
	int af, sport = -1, dport = -1;

	if (!caplen) {
		snprintf(buf, len, "empty");
		return;
	}
	if (pkt[0] >> 4 == 4) {
		v6 = false;
		af = AF_INET;
		hlen = (pkt[0] & 15) * 4;
		if (caplen < 20 || hlen < 20) {
			snprintf(buf, len, "IPv4, %s",
				 caplen < 20 ? "truncated" : "bad header length");
			return;
		}
		proto = pkt[9];
		fragoff = (be16(pkt + 6) & 0x1fff) * 8;
		first = !fragoff;
		if (be16(pkt + 6) & 0x3fff)
			snprintf(extra, sizeof(extra), " fragment offset %u%s",
				 fragoff, be16(pkt + 6) & 0x2000 ? "+" : "");
		if (hlen <= caplen) {
			l4 = pkt + hlen;
			l4len = caplen - hlen;
		}
		addr_str(af, pkt + 12, -1, src, sizeof(src));
		addr_str(af, pkt + 16, -1, dst, sizeof(dst));
	} else if (pkt[0] >> 4 == 6) {
		size_t off = 40;
		int hops = 0;

		v6 = true;
		af = AF_INET6;
		if (caplen < 40) {
			snprintf(buf, len, "IPv6, truncated");
			return;
		}
		proto = pkt[6];
		/* Extension headers up to the transport header. */
		while (hops++ < 8 && off + 8 <= caplen) {
			if (proto == 0 || proto == 43 || proto == 60) {
				proto = pkt[off];
				off += (pkt[off + 1] + 1) * 8;
			} else if (proto == 44) {
				uint16_t fo = be16(pkt + off + 2);

				fragoff = (fo >> 3) * 8;
				first = !fragoff;
				snprintf(extra, sizeof(extra),
					 " fragment offset %u%s", fragoff,
					 fo & 1 ? "+" : "");
				proto = pkt[off];
				off += 8;
			} else {
				break;
			}
		}
		if (off <= caplen) {
			l4 = pkt + off;
			l4len = caplen - off;
		}
		addr_str(af, pkt + 8, -1, src, sizeof(src));
		addr_str(af, pkt + 24, -1, dst, sizeof(dst));
	} else {
		snprintf(buf, len, "not IP (version %u)", pkt[0] >> 4);
		return;
	}
	if (proto_name(proto))
		snprintf(pname, sizeof(pname), "%s", proto_name(proto));
	else
		snprintf(pname, sizeof(pname), "proto %u", proto);
	if (first && l4 && has_ports(proto) && l4len >= 4) {
		sport = be16(l4);
		dport = be16(l4 + 2);
		addr_str(af, pkt + (v6 ? 8 : 12), sport, src, sizeof(src));
		addr_str(af, pkt + (v6 ? 24 : 16), dport, dst, sizeof(dst));
	} else if (first && l4 && l4len >= 1 &&
		   (proto == 1 || proto == 58) && !extra[0]) {
		const char *t = icmp_type(v6, l4[0]);

		if (t)
			snprintf(extra, sizeof(extra), " %s", t);
		else
			snprintf(extra, sizeof(extra), " type %u", l4[0]);
	}
	snprintf(buf, len, "%s %s > %s%s", pname, src, dst, extra);
}
