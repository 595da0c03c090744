// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The victim's prefixes for trace (victim.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "victim.h"

static int parse_one(const char *s, size_t n, struct kb_prefix *p, char *why,
		     size_t whylen)
{
	char buf[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN];
	char *slash, *end;
	unsigned long len;
	unsigned int i, max;

	if (!n || n >= sizeof(buf)) {
		snprintf(why, whylen, "'%.*s' is not an address or ADDR/LEN",
			 (int)(n > 60 ? 60 : n), s);
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->version = 4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->version = 6;
		max = 128;
	} else {
		snprintf(why, whylen, "'%s' is not an IPv4 or IPv6 address",
			 buf);
		return -1;
	}
	len = max;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9') {
			snprintf(why, whylen, "'%s/%s': the prefix length is not a number",
				 buf, slash + 1);
			return -1;
		}
		len = strtoul(slash + 1, &end, 10);
		if (*end) {
			snprintf(why, whylen, "'%s/%s': the prefix length is not a number",
				 buf, slash + 1);
			return -1;
		}
		if (len > max) {
			snprintf(why, whylen, "'%s/%s': the prefix length is not 0..%u",
				 buf, slash + 1, max);
			return -1;
		}
	}
	p->len = len;
	for (i = 0; i < 16; i++) {
		unsigned int bits = i * 8 >= len ? 0 :
				    len - i * 8 >= 8 ? 8 : len - i * 8;

		p->addr[i] &= (uint8_t)(0xff00 >> bits);
	}
	inet_ntop(p->version == 4 ? AF_INET : AF_INET6, p->addr, a, sizeof(a));
	snprintf(p->str, sizeof(p->str), "%s/%u", a, p->len);
	return 0;
}

int kb_victim_parse(const char *s, struct kb_victim *v, char *why,
		    size_t whylen)
{
	const char *c;

	memset(v, 0, sizeof(*v));
	for (;;) {
		c = strchr(s, ',');
		if (v->n == KB_VICTIM_MAX) {
			snprintf(why, whylen, "more than %d prefixes",
				 KB_VICTIM_MAX);
			return -1;
		}
		if (parse_one(s, c ? (size_t)(c - s) : strlen(s), &v->p[v->n],
			      why, whylen))
			return -1;
		v->n++;
		if (!c)
			return 0;
		s = c + 1;
	}
}

static int in_prefix(const struct kb_prefix *p, const uint8_t *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (memcmp(p->addr, a, full))
		return 0;
	return !rest || !((a[full] ^ p->addr[full]) & (uint8_t)(0xff00 >> rest));
}

const struct kb_prefix *kb_victim_match(const struct kb_victim *v,
					const uint8_t *pkt, uint32_t len)
{
	const uint8_t *src;
	int version;
	size_t i;

	if (!len)
		return NULL;
	version = pkt[0] >> 4;
	if (version == 4 && len >= 16)
		src = pkt + 12;
	else if (version == 6 && len >= 24)
		src = pkt + 8;
	else
		return NULL;
	for (i = 0; i < v->n; i++)
		if (v->p[i].version == version && in_prefix(&v->p[i], src))
			return &v->p[i];
	return NULL;
}
