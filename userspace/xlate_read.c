// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reading transform records: see xlate_read.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "describe.h"
#include "pktxform.h"
#include "save.h"
#include "types.h"
#include "util.h"
#include "xlate_read.h"
#include "../kmod/engine/xlate.h"

/* Records of one packet in one window, at most (two CPUs, one flow). */
#define XLATE_PER_WINDOW	8

int kb_xlate_load(struct kb_nl *nl, const char *name,
		  struct kb_archive **out, char *err, size_t errlen)
{
	struct kb_desc *d = calloc(1, sizeof(*d));
	char why[1200], *dir = NULL, **paths = NULL;
	uint32_t i, n = 0, nwin;
	int ret = -1, r;

	*out = NULL;
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kb_desc_get(nl, name, d)) {
		kb_nl_strerror(nl, why, sizeof(why));
		snprintf(err, errlen, "unable to read transforms table '%s': %s",
			 name, why);
		goto out;
	}
	if (!kb_utype_records(d->p.type)) {
		snprintf(err, errlen, "'%s' is a %s filter, not a transforms table",
			 name, kb_type_str(d->p.type));
		goto out;
	}
	dir = private_dir("bloomctl-xlate", 0, "", err, errlen);
	/* Not time-paged: its one table, saved whole as "window 0". */
	nwin = d->have & KB_HAVE_WINDOWS ? d->nwin : 0;
	paths = calloc(nwin + 1, sizeof(*paths));
	if (!dir || !paths) {
		if (dir)
			snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < (nwin ? nwin : 1); i++) {
		struct kb_export x = {
			.name = name, .window = nwin ? d->win[i].id : 0,
			.quiet = true,
		};

		if (asprintf(&paths[n], "%s/%s.%010" PRIu64 ".kbf", dir, name,
			     x.window) < 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		x.path = paths[n++];
		r = kb_export_save(nl, &x);
		if (r == -ESTALE || (r == -ENOENT && nwin && !x.file_error))
			continue;	/* rotated out meanwhile */
		if (r) {
			if (x.file_error)
				snprintf(why, sizeof(why), "%s", x.err);
			else
				kb_nl_strerror(nl, why, sizeof(why));
			snprintf(err, errlen, "unable to export window %" PRIu64 " of transforms table '%s': %s",
				 x.window, name, why);
			goto out;
		}
	}
	ret = kb_archive_open(dir, name, out, err, errlen);
out:
	for (i = 0; paths && i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	if (dir && rmdir(dir) && !ret) {
		snprintf(err, errlen, "unable to remove %s: %s", dir,
			 strerror(errno));
		kb_archive_close(*out);
		*out = NULL;
		ret = -1;
	}
	free(dir);
	free(d);
	return ret;
}

#define XLATE_TUNNEL	(KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE)
/* The distinct addresses of one fold looked at, at most. */
#define XLATE_ADDRS_PER_FOLD	4

/* The records of key @want and class @class, appended to @out. */
static size_t lookup_key(const struct kb_archive *a,
			 const struct kbloom_xlate *want,
			 enum kb_xlate_class class, uint64_t lo, uint64_t hi,
			 struct kb_xlate_hit *out, size_t n, size_t max)
{
	struct kbloom_xlate found[XLATE_PER_WINDOW];
	uint32_t k, m;
	size_t j;

	for (j = 0; j < a->n; j++) {
		const struct kb_archive_window *w = &a->w[j];

		if (w->start_ns > hi || (w->end_ns && w->end_ns < lo))
			continue;
		m = kb_xlate_find((const struct kbloom_xlate *)w->f.mem,
				  w->f.s.m, &w->f.hkey, want, found,
				  XLATE_PER_WINDOW);
		for (k = 0; k < m && k < XLATE_PER_WINDOW; k++) {
			/* A NAT key and a tunnel key may be equal. */
			if (kb_xlate_class(found[k].kind) != class)
				continue;
			if (n < max) {
				memset(&out[n], 0, sizeof(out[n]));
				out[n].rec = found[k];
				out[n].window = w->id;
				out[n].start = w->start_ns;
				out[n].end = w->end_ns;
			}
			n++;
		}
	}
	return n;
}

/*
 * The distinct records (by every byte) that @want's key finds in any of
 * @a's windows and @take accepts (@want given too): up to @max in @out.
 * For records that go with another made in a window before (an address
 * does not change with the window; a more record is made just before
 * its tunnel record, perhaps in the window before).
 */
static size_t found_anywhere(const struct kb_archive *a,
			     const struct kbloom_xlate *want,
			     bool (*take)(const struct kbloom_xlate *f,
					  const struct kbloom_xlate *want),
			     struct kbloom_xlate *out, size_t max)
{
	struct kbloom_xlate found[XLATE_PER_WINDOW];
	size_t j, n = 0, i;
	uint32_t k, m;

	for (j = 0; j < a->n; j++) {
		const struct kb_archive_window *w = &a->w[j];

		m = kb_xlate_find((const struct kbloom_xlate *)w->f.mem,
				  w->f.s.m, &w->f.hkey, want, found,
				  XLATE_PER_WINDOW);
		for (k = 0; k < m && k < XLATE_PER_WINDOW; k++) {
			if (!take(&found[k], want))
				continue;
			for (i = 0; i < n && memcmp(&out[i], &found[k],
						    sizeof(out[i])); i++)
				;
			if (i == n && n < max)
				out[n++] = found[k];
		}
	}
	return n;
}

static bool is_address(const struct kbloom_xlate *f,
		       const struct kbloom_xlate *want)
{
	(void)want;
	return kb_xlate_class(f->kind) == KB_XREC_ADDRESS;
}

/*
 * The distinct IPv6 addresses of fold @fold among @a's address records,
 * in any window: up to XLATE_ADDRS_PER_FOLD.
 */
static size_t addrs_of_fold(const struct kb_archive *a, uint32_t fold,
			    uint8_t (*out)[16])
{
	struct kbloom_xlate want = { .family = 6, .after_src = fold };
	struct kbloom_xlate rec[XLATE_ADDRS_PER_FOLD];
	size_t n, i;

	n = found_anywhere(a, &want, is_address, rec, XLATE_ADDRS_PER_FOLD);
	for (i = 0; i < n; i++)
		kb_xlate_addr6_get(&rec[i], out[i]);
	return n;
}

/*
 * The candidates for an address of fold @fold: @own (a NAT's AFTER
 * address, when the NAT may have kept it: the folds agree) and those of
 * the address records; @own alone when the NAT surely kept it (@sure:
 * its side not in KIND, so neither address nor port was rewritten).
 * Up to XLATE_ADDRS_PER_FOLD in @out.
 */
static size_t addr6_candidates(const struct kb_archive *a, uint32_t fold,
			       const uint8_t *own, bool sure,
			       uint8_t (*out)[16])
{
	uint8_t rec[XLATE_ADDRS_PER_FOLD][16];
	bool kept = own && kb_xlate_fold6(own) == fold;
	size_t n = 0, m, i;

	if (kept)
		memcpy(out[n++], own, 16);
	if (kept && sure)
		return n;
	m = addrs_of_fold(a, fold, rec);
	for (i = 0; i < m && n < XLATE_ADDRS_PER_FOLD; i++)
		if (!kept || memcmp(rec[i], own, 16))
			memcpy(out[n++], rec[i], 16);
	return n;
}

/*
 * Hit @out[@h] once per pair of @src (@ns) and @dst (@nd) addresses,
 * the first pair in it, the others from @out[@n] on (up to @max), into
 * their addr6 or (@after) after6: the new count.
 */
static size_t hit_per_pair(struct kb_xlate_hit *out, size_t h, size_t n,
			   size_t max, uint8_t (*src)[16], size_t ns,
			   uint8_t (*dst)[16], size_t nd, bool after)
{
	struct kb_xlate_hit *x;
	size_t i, j;

	for (i = 0; i < ns; i++) {
		for (j = 0; j < nd; j++) {
			x = i || j ? (n < max ? &out[n] : NULL) : &out[h];
			if (i || j)
				n++;
			if (!x)
				continue;
			*x = out[h];
			memcpy(after ? x->after6 : x->addr6, src[i], 16);
			memcpy((after ? x->after6 : x->addr6) + 16, dst[j], 16);
		}
	}
	return n;
}

/*
 * Hits @out[0, @n) of IPv6 packet @pkt whose records fold addresses
 * (a tunnel's over IPv6, an IPv6 NAT's), given the addresses from the
 * address records: a hit per pair (two addresses may share a fold), or
 * addr6_lost when one has none. Returns the new count.
 */
static size_t addr6_of(const struct kb_archive *a, const uint8_t *pkt,
		       struct kb_xlate_hit *out, size_t n, size_t max)
{
	uint8_t src[XLATE_ADDRS_PER_FOLD][16], dst[XLATE_ADDRS_PER_FOLD][16];
	size_t h, end = n < max ? n : max, ns, nd;
	const uint8_t *own;
	bool nat;

	for (h = 0; h < end; h++) {
		own = NULL;
		nat = kb_xlate_class(out[h].rec.kind) == KB_XREC_NAT;
		if (nat ? out[h].rec.family != 6 :
		    !(out[h].rec.kind & KBLOOM_XLATE_OUTER6))
			continue;
		/* An IPv6 NAT record is found by an IPv6 packet's key. */
		if (nat) {
			own = pkt + 8;
			memcpy(out[h].after6, own, 32);
		}
		ns = addr6_candidates(a, out[h].rec.before_src, own,
				      !(out[h].rec.kind & KBLOOM_XLATE_SNAT),
				      src);
		nd = addr6_candidates(a, out[h].rec.before_dst,
				      own ? own + 16 : NULL,
				      !(out[h].rec.kind & KBLOOM_XLATE_DNAT),
				      dst);
		out[h].addr6_lost = !ns || !nd;
		n = hit_per_pair(out, h, n, max, src, ns, dst, nd, false);
	}
	return n;
}

/* The distinct more records of one tunnel record looked at, at most. */
#define XLATE_MORE_PER_HIT	4

/*
 * Hits @out[0, @n) of tunnel records with a more record: the hit once
 * per more record found (the others from @out[@n] on, up to @max), or
 * more_lost. Returns the new count.
 */
static size_t more_of(const struct kb_archive *a, struct kb_xlate_hit *out,
		      size_t n, size_t max)
{
	struct kbloom_xlate more[XLATE_MORE_PER_HIT];
	size_t h, end = n < max ? n : max, m, i;

	for (h = 0; h < end; h++) {
		if (!kb_xlate_has_more(out[h].rec.kind))
			continue;
		m = found_anywhere(a, &out[h].rec, kb_xlate_is_more_of, more,
				   XLATE_MORE_PER_HIT);
		out[h].more_lost = !m;
		for (i = 1; i < m; i++, n++) {
			if (n >= max)
				continue;
			out[n] = out[h];
			out[n].more = more[i];
		}
		if (m)
			out[h].more = more[0];
	}
	return n;
}

bool kb_xlate_hit_lost(const struct kb_xlate_hit *hit)
{
	return hit->addr6_lost || hit->more_lost;
}

/*
 * The NAT records of @a in the windows overlapping [@lo, @hi] @match
 * takes (a value > 0): how many, and the first @max of them in @out as an
 * ICMP error's hits (guess where @match gave 2); @out may be NULL.
 */
static size_t nat_hits(const struct kb_archive *a, uint64_t lo, uint64_t hi,
		       int (*match)(const struct kbloom_xlate *r, const void *arg),
		       const void *arg, struct kb_xlate_hit *out, size_t max)
{
	size_t j, n = 0;
	uint64_t c;
	int m;

	if (!kb_utype_records(a->type))
		return 0;
	for (j = 0; j < a->n; j++) {
		const struct kb_archive_window *w = &a->w[j];
		const struct kbloom_xlate *cells = (const void *)w->f.mem;

		if (w->start_ns > hi || (w->end_ns && w->end_ns < lo))
			continue;
		for (c = 0; c < w->f.s.m; c++) {
			if (cells[c].state != KBLOOM_XLATE_VALID ||
			    kb_xlate_class(cells[c].kind) != KB_XREC_NAT)
				continue;
			m = match(&cells[c], arg);
			if (m <= 0)
				continue;
			if (out && n < max) {
				memset(&out[n], 0, sizeof(out[n]));
				out[n].rec = cells[c];
				out[n].window = w->id;
				out[n].start = w->start_ns;
				out[n].end = w->end_ns;
				out[n].icmp_error = true;
				out[n].guess = m == 2;
			}
			n++;
		}
	}
	return n;
}

/* The packet's family, protocol and addresses (@arg: its key), as it left. */
static int of_addrs(const struct kbloom_xlate *r, const void *arg)
{
	const struct kbloom_xlate *w = arg;

	return r->family == w->family && r->proto == w->proto &&
	       r->after_src == w->after_src && r->after_dst == w->after_dst;
}

bool kb_xlate_nat_of_addrs(const struct kb_archive *a, const uint8_t *pkt,
			   uint32_t len, uint64_t lo, uint64_t hi)
{
	struct kbloom_xlate want;

	if (pkt_addrs_key(pkt, len, &want))
		return false;
	return nat_hits(a, lo, hi, of_addrs, &want, NULL, 0);
}

struct pkt_ref {
	const uint8_t *pkt;
	uint32_t len;
};

/*
 * Hits @out[0, @n) of ICMPv6 error @pkt, of IPv6 NAT records: the
 * addresses of the record's other form from the address records (a hit
 * per pair), beside the quote's own (pkt_icmp_error_addrs6()); addr6_lost
 * when one has none. Returns the new count.
 */
static size_t icmp6_addrs_of(const struct kb_archive *a, const uint8_t *pkt,
			     uint32_t len, struct kb_xlate_hit *out, size_t n,
			     size_t max)
{
	uint8_t c[2][XLATE_ADDRS_PER_FOLD][16];
	size_t h, end = n < max ? n : max, nc[2], s;
	const uint8_t *own[2];
	uint32_t folds[2];
	bool sure[2];
	int side;

	for (h = 0; h < end; h++) {
		side = pkt_icmp_error_addrs6(&out[h].rec, pkt, len, folds, own,
					     sure);
		if (side < 0)
			continue;
		/* The quote's form; AFTER's found (side 0), or BEFORE's. */
		memcpy(side ? out[h].after6 : out[h].addr6, own[0], 16);
		memcpy((side ? out[h].after6 : out[h].addr6) + 16, own[1], 16);
		for (s = 0; s < 2; s++)
			nc[s] = addr6_candidates(a, folds[s], own[s], sure[s],
						 c[s]);
		out[h].addr6_lost = !nc[0] || !nc[1];
		n = hit_per_pair(out, h, n, max, c[0], nc[0], c[1], nc[1], !side);
	}
	return n;
}

static int of_icmp_error(const struct kbloom_xlate *r, const void *arg)
{
	const struct pkt_ref *p = arg;

	return pkt_icmp_error_of(r, p->pkt, p->len);
}

bool kb_xlate_nat_of_icmp_error(const struct kb_archive *a,
				const uint8_t *pkt, uint32_t len, uint64_t lo,
				uint64_t hi)
{
	struct pkt_ref p = { pkt, len };

	return nat_hits(a, lo, hi, of_icmp_error, &p, NULL, 0);
}

size_t kb_xlate_lookup(const struct kb_archive *a, const uint8_t *pkt,
		       uint32_t len, uint64_t lo, uint64_t hi,
		       struct kb_xlate_hit *out, size_t max)
{
	struct kbloom_xlate want;
	size_t n = 0;

	if (!kb_utype_records(a->type))
		return 0;
	if (!pkt_xlate_want(pkt, len, &want))
		n = lookup_key(a, &want, KB_XREC_NAT, lo, hi, out, n, max);
	if (!pkt_tunnel_want(pkt, len, &want))
		n = lookup_key(a, &want, KB_XREC_TUNNEL, lo, hi, out, n, max);
	n = addr6_of(a, pkt, out, n, max);
	n = more_of(a, out, n, max);
	/* An ICMP error: the records of the flow it is about. */
	if (!n && len) {
		struct pkt_ref p = { pkt, len };

		n = nat_hits(a, lo, hi, of_icmp_error, &p, out, max);
		n = icmp6_addrs_of(a, pkt, len, out, n, max);
	}
	if (!pkt_arrival_want(pkt, len, &want))
		n = lookup_key(a, &want, KB_XREC_ARRIVAL, lo, hi, out, n,
			       max);
	return n;
}

bool kb_xlate_arrival_undone(const struct kb_xlate_hit *hit, size_t m,
			     const struct kbloom_xlate *arr, bool tunneled)
{
	uint16_t kind = ntohs(arr->before_dport);
	size_t h;

	if (kind == KBLOOM_ARRIVAL_ESP || kind == KBLOOM_ARRIVAL_AH ||
	    kind == KBLOOM_ARRIVAL_IPCOMP || kind == KBLOOM_ARRIVAL_MERGED)
		return false;
	if (tunneled)
		return true;
	for (h = 0; h < m; h++)
		if (kb_xlate_class(hit[h].rec.kind) == KB_XREC_TUNNEL)
			return true;
	return false;
}

int kb_xlate_before(const struct kb_xlate_hit *hit, const uint8_t *pkt,
		    uint32_t len, uint8_t **out, uint32_t *outlen)
{
	/*
	 * The longest outer headers: IPv6 with VXLAN's or GENEVE's (UDP 8,
	 * their own 8 and GENEVE's options, up to 252, Ethernet 14), more
	 * than an encapsulation limit and GRE's 16 bytes.
	 */
	uint32_t max = len + 40 + 8 + 8 + 252 + 14;
	const struct kbloom_xlate *r = &hit->rec;
	uint8_t *buf = malloc(max);
	int ret;

	if (!buf)
		return -ENOMEM;
	/*
	 * Addresses folded, or a checksum kept apart, and not in the table:
	 * nothing to rebuild by.
	 */
	switch (kb_xlate_hit_lost(hit) ? KB_XREC_NONE : kb_xlate_class(r->kind)) {
	case KB_XREC_TUNNEL:
		ret = pkt_tunnel_outer(pkt, len, r,
				       r->kind & KBLOOM_XLATE_OUTER6 ?
				       hit->addr6 : NULL,
				       kb_xlate_has_more(r->kind) ?
				       &hit->more : NULL, buf, max, outlen);
		break;
	case KB_XREC_NAT:
		ret = hit->icmp_error && r->family == 6 ?
		      pkt_icmp_error_invert6(r, pkt, len, hit->addr6,
					     hit->after6, buf) :
		      hit->icmp_error ? pkt_icmp_error_invert(r, pkt, len, buf) :
		      r->family != 6 ? pkt_xlate_invert(pkt, len, r, buf) :
		      pkt_xlate_invert6(pkt, len, r, hit->addr6, buf);
		*outlen = len;
		break;
	default:
		ret = -1;		/* what it came out of is not kept */
		break;
	}
	if (ret) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

/* "100.64.0.1:61000", "10.9.0.5 id 7", "10.9.0.5" (protocols without). */
static void endpoint(char *buf, size_t len, uint8_t proto, uint32_t addr,
		     uint16_t port, bool with_port)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &addr, a, sizeof(a));
	if (!with_port)
		snprintf(buf, len, "%s", a);
	else if (proto == 1)
		snprintf(buf, len, "%s id %u", a, ntohs(port));
	else
		snprintf(buf, len, "%s:%u", a, ntohs(port));
}

static void nat_str(const struct kbloom_xlate *r, char *buf, size_t len);

/*
 * A GRE record's optional words, in their order: the first with its
 * value (FIRST), the others by name only (not kept).
 */
static void gre_words(const struct kbloom_xlate *r, char *buf, size_t len)
{
	static const struct {
		uint8_t bit;
		const char *name, *fmt;
	} words[] = {
		{ KBLOOM_XLATE_GRE_CSUM, " csum", " csum 0x%04x" },
		{ KBLOOM_XLATE_GRE_KEY, " key", " key %u" },
		{ KBLOOM_XLATE_GRE_SEQ, " seq", " seq %u" },
	};
	bool first = true;
	size_t i, n = 0;

	for (i = 0; i < sizeof(words) / sizeof(words[0]) && n < len; i++) {
		if (!(r->kind & words[i].bit))
			continue;
		if (first)
			n += snprintf(buf + n, len - n, words[i].fmt,
				      words[i].bit == KBLOOM_XLATE_GRE_CSUM ?
				      ntohl(r->first) >> 16 : ntohl(r->first));
		else
			n += snprintf(buf + n, len - n, "%s", words[i].name);
		first = false;
	}
}

/* A tunnel record's kind, in words. */
static const char *tunnel_word(uint32_t kind)
{
	if ((kind & KBLOOM_XLATE_GENEVE) == KBLOOM_XLATE_GENEVE)
		return "GENEVE";
	if ((kind & XLATE_TUNNEL) == KBLOOM_XLATE_VXLAN)
		return "VXLAN";
	return kind & KBLOOM_XLATE_GRE ? "GRE" : "IPIP";
}

/* What an arrival record's packet came out of (enum kbloom_arrival). */
static const char *const arrival_words[] = {
	[KBLOOM_ARRIVAL_ESP] = "IPsec ESP",
	[KBLOOM_ARRIVAL_AH] = "IPsec AH",
	[KBLOOM_ARRIVAL_IPCOMP] = "IPComp",
	[KBLOOM_ARRIVAL_WIREGUARD] = "a wireguard device",
	[KBLOOM_ARRIVAL_VXLAN] = "a vxlan device",
	[KBLOOM_ARRIVAL_GENEVE] = "a geneve device",
	[KBLOOM_ARRIVAL_SIT] = "a sit device",
	[KBLOOM_ARRIVAL_IP6TNL] = "an ip6tnl device",
	[KBLOOM_ARRIVAL_IP6GRE] = "an ip6gre device",
	[KBLOOM_ARRIVAL_GRETAP] = "a gretap device",
	[KBLOOM_ARRIVAL_FOU] = "an ipip or gre device in UDP",
	[KBLOOM_ARRIVAL_XFRM] = "an xfrm or vti device",
	[KBLOOM_ARRIVAL_BAREUDP] = "a bareudp device",
	[KBLOOM_ARRIVAL_GTP] = "a gtp device",
	[KBLOOM_ARRIVAL_TUN] = "a tun or tap device (a program wrote the packet)",
	[KBLOOM_ARRIVAL_MERGED] = "packets merged by GRO",
};

/* "IPsec ESP 10.1.0.1 > 10.2.0.2 spi 0x100", "a vxlan device (ifindex 7)". */
static void arrival_str(const struct kbloom_xlate *r, char *buf, size_t len)
{
	uint16_t kind = ntohs(r->before_dport);
	const char *what = kind < ARRAY_SIZE(arrival_words) &&
			   arrival_words[kind] ? arrival_words[kind] :
			   "a tunnel of an unknown kind";
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];

	if (kind == KBLOOM_ARRIVAL_ESP || kind == KBLOOM_ARRIVAL_AH ||
	    kind == KBLOOM_ARRIVAL_IPCOMP) {
		if (!r->before_src && !r->before_dst) {
			snprintf(buf, len, "%s spi 0x%x", what, ntohl(r->first));
			return;
		}
		inet_ntop(AF_INET, &r->before_src, x, sizeof(x));
		inet_ntop(AF_INET, &r->before_dst, y, sizeof(y));
		snprintf(buf, len, "%s %s > %s spi 0x%x", what, x, y,
			 ntohl(r->first));
		return;
	}
	if (kind == KBLOOM_ARRIVAL_MERGED &&
	    (r->first & KBLOOM_XLATE_OUTER6)) {
		/* Its outer addresses' folds only: no address record. */
		snprintf(buf, len, "%s over IPv6 %s", tunnel_word(r->first),
			 what);
		return;
	}
	if (kind == KBLOOM_ARRIVAL_MERGED) {
		inet_ntop(AF_INET, &r->before_src, x, sizeof(x));
		inet_ntop(AF_INET, &r->before_dst, y, sizeof(y));
		snprintf(buf, len, "%s %s > %s %s", tunnel_word(r->first), x,
			 y, what);
		return;
	}
	snprintf(buf, len, "%s (ifindex %u)", what, r->first);
}

/*
 * What a tunnel record's more record @more holds, in words (" csum
 * 0x1f2e", " options 32 bytes", with GENEVE's O and C flags " oam",
 * " critical"), or, @more NULL, that it is not in the table; nothing for
 * a record without one. The characters written, as snprintf().
 */
static int more_words(const struct kbloom_xlate *r,
		      const struct kbloom_xlate *more, char *buf, size_t len)
{
	bool csum = kb_xlate_more_csum(r->kind);
	bool opts = r->kind & KBLOOM_XLATE_GENEVE_OPT;
	const uint8_t *g = more ? (const uint8_t *)&more->before_dport : NULL;
	char c[16] = "", o[48] = "";

	if (!kb_xlate_has_more(r->kind))
		return 0;
	if (!more)
		return snprintf(buf, len, " (its %s%s%s %s not in the table)",
				csum ? "UDP checksum" : "",
				csum && opts ? " and " : "",
				opts ? "GENEVE options' length" : "",
				csum && opts ? "are" : "is");
	if (csum)
		snprintf(c, sizeof(c), " csum 0x%04x", ntohs(more->before_sport));
	if (opts)
		snprintf(o, sizeof(o), " options %u bytes%s%s",
			 (g[0] & KB_GENEVE_OPT_LEN) * 4,
			 g[1] & KB_GENEVE_OAM ? " oam" : "",
			 g[1] & KB_GENEVE_CRITICAL ? " critical" : "");
	return snprintf(buf, len, "%s%s", c, o);
}

/*
 * A tunnel record over IPv6: "4in6 fd02::1 > fd03::2 flowlabel 0x5b1c3
 * encaplimit 4", "6in6 ...", "GRE6 ...[ key 7]", "VXLAN6
 * [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x00000[ csum 0x1f2e]"
 * ("GENEVE6 ...[ options 8 bytes]"); @outer6 NULL: its addresses are
 * not in the table; @more (kb_xlate_has_more()) NULL: what it holds.
 */
static void tunnel6_str(const struct kbloom_xlate *r, const uint8_t *outer6,
			const struct kbloom_xlate *more, char *buf, size_t len)
{
	uint32_t word = (uint32_t)ntohs(r->before_sport) << 16 |
			ntohs(r->before_dport);
	char x[INET6_ADDRSTRLEN], y[INET6_ADDRSTRLEN];
	const uint8_t *udp = (const uint8_t *)&r->first;
	bool vxlan = (r->kind & XLATE_TUNNEL) == KBLOOM_XLATE_VXLAN;
	size_t n;

	n = (size_t)snprintf(buf, len, "%s%s",
			     vxlan ? tunnel_word(r->kind) :
			     r->kind & KBLOOM_XLATE_GRE ? "GRE" :
			     r->family == 6 ? "6in6" : "4in6",
			     vxlan || r->kind & KBLOOM_XLATE_GRE ? "6" : "");
	if (outer6 && vxlan && n < len) {
		inet_ntop(AF_INET6, outer6, x, sizeof(x));
		inet_ntop(AF_INET6, outer6 + 16, y, sizeof(y));
		n += (size_t)snprintf(buf + n, len - n, " [%s]:%u > [%s]:%u",
				      x, udp[0] << 8 | udp[1], y,
				      udp[2] << 8 | udp[3]);
	} else if (outer6 && n < len) {
		inet_ntop(AF_INET6, outer6, x, sizeof(x));
		inet_ntop(AF_INET6, outer6 + 16, y, sizeof(y));
		n += (size_t)snprintf(buf + n, len - n, " %s > %s", x, y);
	} else if (n < len) {
		n += (size_t)snprintf(buf + n, len - n,
				      " (its outer addresses are not in the table)");
		if (vxlan && n < len)
			n += (size_t)snprintf(buf + n, len - n, " ports %u > %u",
					      udp[0] << 8 | udp[1],
					      udp[2] << 8 | udp[3]);
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " flowlabel 0x%05x",
				      word & KBLOOM_XLATE_FLOWLABEL);
	if (n < len)
		n += (size_t)more_words(r, more, buf + n, len - n);
	if ((word & KBLOOM_XLATE_HAS_ENCAPLIM) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " encaplimit %u",
				      (word & KBLOOM_XLATE_ENCAPLIM) >>
				      KBLOOM_XLATE_ENCAPLIM_SHIFT);
	if ((r->kind & KBLOOM_XLATE_GRE) && !vxlan && n < len)
		gre_words(r, buf + n, len - n);
}

/* "[2001:db8::1]:61000", "2001:db8::1 id 7", "2001:db8::1". */
static void endpoint6(char *buf, size_t len, uint8_t proto, const uint8_t *a,
		      uint16_t port, bool with_port)
{
	char x[INET6_ADDRSTRLEN] = "?";

	if (a)
		inet_ntop(AF_INET6, a, x, sizeof(x));
	if (!with_port)
		snprintf(buf, len, "%s", x);
	else if (proto == 58)
		snprintf(buf, len, "%s id %u", x, ntohs(port));
	else
		snprintf(buf, len, "[%s]:%u", x, ntohs(port));
}

/*
 * An IPv6 NAT record: "SNAT [AFTER]:P <- [BEFORE]:P; DNAT ..." with
 * @before6 and @after6 (32 bytes each); without them "(its addresses are
 * not in the table) SNAT [?]:P <- [?]:P".
 */
static void nat6_str(const struct kbloom_xlate *r, const uint8_t *before6,
		     const uint8_t *after6, char *buf, size_t len)
{
	bool ports = r->proto == 58 || r->proto == 6 || r->proto == 17 ||
		     r->proto == 33 || r->proto == 132 || r->proto == 136;
	char x[64], y[64];
	size_t n = 0;

	buf[0] = 0;
	if (!before6)
		n = (size_t)snprintf(buf, len,
				     "(its addresses are not in the table) ");
	if ((r->kind & KBLOOM_XLATE_STATELESS) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "stateless ");
	if ((r->kind & KBLOOM_XLATE_SNAT) && n < len) {
		endpoint6(x, sizeof(x), r->proto, after6, r->after_sport, ports);
		endpoint6(y, sizeof(y), r->proto, before6, r->before_sport,
			  ports);
		n += (size_t)snprintf(buf + n, len - n, "SNAT %s <- %s", x, y);
	}
	if ((r->kind & KBLOOM_XLATE_DNAT) && n < len) {
		/* ICMPv6's identifier went with the source. */
		bool p = ports && r->proto != 58;

		endpoint6(x, sizeof(x), r->proto, after6 ? after6 + 16 : NULL,
			  r->after_dport, p);
		endpoint6(y, sizeof(y), r->proto, before6 ? before6 + 16 : NULL,
			  r->before_dport, p);
		snprintf(buf + n, len - n, "%sDNAT %s <- %s",
			 r->kind & KBLOOM_XLATE_SNAT ? "; " : "", x, y);
	}
}

/*
 * A VXLAN or GENEVE record over IPv4: "VXLAN 10.2.0.1:51234 >
 * 10.3.0.2:4789 id 7[ csum 0x1f2e]" ("GENEVE ...[ options 8 bytes]");
 * @more NULL: its more record is not in the table.
 */
static void udp4_str(const struct kbloom_xlate *r,
		     const struct kbloom_xlate *more, char *buf, size_t len)
{
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];
	const uint8_t *udp = (const uint8_t *)&r->first;
	int n;

	inet_ntop(AF_INET, &r->before_src, x, sizeof(x));
	inet_ntop(AF_INET, &r->before_dst, y, sizeof(y));
	n = snprintf(buf, len, "%s %s:%u > %s:%u id %u", tunnel_word(r->kind),
		     x, udp[0] << 8 | udp[1], y, udp[2] << 8 | udp[3],
		     ntohs(r->before_sport));
	if ((r->kind & KBLOOM_XLATE_VXLAN_CSUM) && n >= 0 && n < (int)len)
		n += snprintf(buf + n, len - n, " csum 0x%04x",
			      ntohs(r->before_dport));
	if (n >= 0 && n < (int)len)
		more_words(r, more, buf + n, len - n);
}

void kb_xlate_hit_str(const struct kb_xlate_hit *hit, char *buf, size_t len)
{
	enum kb_xlate_class class = kb_xlate_class(hit->rec.kind);
	const uint8_t *a = hit->addr6_lost ? NULL : hit->addr6;

	if (hit->icmp_error) {
		/* "ICMP error about SNAT ...", its own words after. */
		int n = snprintf(buf, len, "ICMP error about ");

		if (n < 0 || (size_t)n >= len)
			return;
		if (hit->rec.family == 6)
			nat6_str(&hit->rec, a, a ? hit->after6 : NULL, buf + n,
				 len - n);
		else
			kb_xlate_str(&hit->rec, buf + n, len - n);
		n = strlen(buf);
		if (hit->guess)
			snprintf(buf + n, len - n, ", its sender guessed");
	} else if (class == KB_XREC_TUNNEL &&
		   (hit->rec.kind & KBLOOM_XLATE_OUTER6)) {
		tunnel6_str(&hit->rec, a, hit->more_lost ? NULL : &hit->more,
			    buf, len);
	} else if (class == KB_XREC_TUNNEL &&
		   (hit->rec.kind & XLATE_TUNNEL) == KBLOOM_XLATE_VXLAN) {
		udp4_str(&hit->rec, hit->more_lost ? NULL : &hit->more, buf,
			 len);
	} else if (class == KB_XREC_NAT && hit->rec.family == 6) {
		nat6_str(&hit->rec, a, hit->after6, buf, len);
	} else {
		kb_xlate_str(&hit->rec, buf, len);
	}
}

void kb_xlate_str(const struct kbloom_xlate *r, char *buf, size_t len)
{
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];
	int n;

	if (kb_xlate_class(r->kind) == KB_XREC_TUNNEL &&
	    (r->kind & KBLOOM_XLATE_OUTER6)) {
		tunnel6_str(r, NULL, NULL, buf, len);
		return;
	}
	if (kb_xlate_class(r->kind) == KB_XREC_NAT && r->family == 6) {
		nat6_str(r, NULL, NULL, buf, len);
		return;
	}
	if (r->kind & KBLOOM_XLATE_OPAQUE) {
		arrival_str(r, buf, len);
		return;
	}
	if ((r->kind & XLATE_TUNNEL) == KBLOOM_XLATE_VXLAN) {
		udp4_str(r, NULL, buf, len);
		return;
	}
	if (r->kind & XLATE_TUNNEL) {
		inet_ntop(AF_INET, &r->before_src, x, sizeof(x));
		inet_ntop(AF_INET, &r->before_dst, y, sizeof(y));
		n = snprintf(buf, len, "%s %s > %s id %u",
			     r->family == 6 && !(r->kind & KBLOOM_XLATE_GRE) ?
			     "6in4" : tunnel_word(r->kind), x, y,
			     ntohs(r->before_sport));
		if (r->kind & KBLOOM_XLATE_GRE)
			gre_words(r, buf + n, n < (int)len ? len - n : 0);
		return;
	}
	nat_str(r, buf, len);
}

/* "SNAT A <- B; DNAT C <- D". */
static void nat_str(const struct kbloom_xlate *r, char *buf, size_t len)
{
	bool ports = r->proto == 1 || r->proto == 6 || r->proto == 17 ||
		     r->proto == 33 || r->proto == 132 || r->proto == 136;
	char x[64], y[64];
	size_t n = 0;

	buf[0] = 0;
	if (r->kind & KBLOOM_XLATE_STATELESS)
		n = (size_t)snprintf(buf, len, "stateless ");
	if ((r->kind & KBLOOM_XLATE_SNAT) && n < len) {
		endpoint(x, sizeof(x), r->proto, r->after_src, r->after_sport,
			 ports);
		endpoint(y, sizeof(y), r->proto, r->before_src,
			 r->before_sport, ports);
		n += (size_t)snprintf(buf + n, len - n, "SNAT %s <- %s", x, y);
	}
	if ((r->kind & KBLOOM_XLATE_DNAT) && n < len) {
		/* ICMP's identifier went with the source. */
		bool p = ports && r->proto != 1;

		endpoint(x, sizeof(x), r->proto, r->after_dst, r->after_dport,
			 p);
		endpoint(y, sizeof(y), r->proto, r->before_dst,
			 r->before_dport, p);
		snprintf(buf + n, len - n, "%sDNAT %s <- %s",
			 r->kind & KBLOOM_XLATE_SNAT ? "; " : "", x, y);
	}
}
