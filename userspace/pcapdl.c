// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <dlfcn.h>
#include <stdio.h>

#include "pcapdl.h"

static struct kb_pcap_api api;
static void *lib;

/* A function pointer from a void * is what dlsym() is for (POSIX). */
#define SYM(field, name) { (void **)&api.field, name }

const struct kb_pcap_api *kb_pcap_api(char *err, size_t errlen)
{
	static const struct {
		void **slot;
		const char *name;
	} syms[] = {
		SYM(open_offline_with_tstamp_precision,
		    "pcap_open_offline_with_tstamp_precision"),
		SYM(datalink, "pcap_datalink"),
		SYM(datalink_val_to_name, "pcap_datalink_val_to_name"),
		SYM(next_ex, "pcap_next_ex"),
		SYM(geterr, "pcap_geterr"),
		SYM(close, "pcap_close"),
		SYM(open_dead, "pcap_open_dead"),
		SYM(dump_fopen, "pcap_dump_fopen"),
		SYM(dump, "pcap_dump"),
		SYM(dump_close, "pcap_dump_close"),
	};
	size_t i;

	if (lib)
		return &api;
	lib = dlopen(KB_PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, errlen, "unable to load libpcap: %s", dlerror());
		return NULL;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(lib, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(err, errlen, "libpcap (%s) lacks %s",
				 KB_PCAP_SONAME, syms[i].name);
			dlclose(lib);
			lib = NULL;
			return NULL;
		}
	}
	return &api;
}
