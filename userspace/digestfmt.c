// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdio.h>
#include <string.h>

#include "digestfmt.h"
#include "pktfmt.h"

static const char *const dim_names[KB_DIGEST_DIMS] = { "src", "dst", "dport" };

void kb_digest_fmt(const struct kb_digest *d, uint32_t mode, char *buf,
		   size_t len)
{
	char hex[2 + 2 * KB_DIGEST_LEN_MAX + 1];
	size_t n = 0;
	int i;

	if (mode != KBLOOM_DIGEST_MULTI) {
		kb_hex_str(d->key, d->len, buf, len);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < KB_DIGEST_DIMS && n < len; i++) {
		kb_hex_str(d->key + d->dim_off[i], d->dim_len[i], hex,
			   sizeof(hex));
		n += snprintf(buf + n, len - n, "%s%s=%s", i ? "," : "",
			      dim_names[i], hex);
	}
}

void kb_digest_tuple(const struct kb_digest *d, struct kp_tuple *t)
{
	int i;

	t->mask = 0;
	for (i = 0; i < KB_DIGEST_DIMS; i++) {
		t->mask |= 1U << i;
		t->len[i] = d->dim_len[i];
		memcpy(t->val[i], d->key + d->dim_off[i], d->dim_len[i]);
	}
}
