/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libpcap, loaded with dlopen() the first time a command reads or writes a
 * capture. Linked normally it brings eight libraries (dbus, systemd,
 * gcrypt, ...) into every bloomctl process, and in the emulated test VM,
 * where each library is opened over 9p, that start-up cost was larger
 * than a bulk load of 100000 keys.
 */
#ifndef BLOOMCTL_PCAPDL_H
#define BLOOMCTL_PCAPDL_H

#include <stddef.h>
#include <stdio.h>

#include <pcap/pcap.h>

/* The soname Debian's libpcap0.8 installs (the ABI of libpcap 1.x). */
#define KB_PCAP_SONAME "libpcap.so.0.8"

struct kb_pcap_api {
	pcap_t *(*open_offline_with_tstamp_precision)(const char *path,
						      u_int precision,
						      char *errbuf);
	int (*datalink)(pcap_t *p);
	const char *(*datalink_val_to_name)(int dlt);
	int (*next_ex)(pcap_t *p, struct pcap_pkthdr **h,
		       const u_char **data);
	char *(*geterr)(pcap_t *p);
	void (*close)(pcap_t *p);
	pcap_t *(*open_dead)(int linktype, int snaplen);
	pcap_dumper_t *(*dump_fopen)(pcap_t *p, FILE *f);
	void (*dump)(u_char *user, const struct pcap_pkthdr *h,
		     const u_char *data);
	void (*dump_close)(pcap_dumper_t *d);
};

/*
 * The functions, loading libpcap on the first call; NULL with the reason
 * ("libpcap.so.0.8: cannot open shared object file ...") in @err when it
 * cannot be loaded or lacks one of them.
 */
const struct kb_pcap_api *kb_pcap_api(char *err, size_t errlen);

#endif
