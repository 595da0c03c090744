/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * kbloom — Bloom filters in kernel memory, driven over generic netlink.
 *
 * This header is THE ABI between the kbloom module and its tools (bloomctl).
 * It is included unchanged by both sides.
 *
 * Family
 * ------
 * Generic netlink family KBLOOM_GENL_NAME, version KBLOOM_GENL_VERSION.
 * A request carries the version its sender was built with. Version 2
 * added HASH_FN: a client of version 1 knows nothing of it and would save
 * a filter of SipHash-1-3 as one of SipHash-2-4, so its EXPORT of such a
 * filter is refused (EOPNOTSUPP, with a message); everything else it may
 * do as before. A client that cannot set the header's version (the
 * kernel's spec-driven ynl always sends 1) states the version it speaks
 * in CLIENT_VERSION, which any request may carry: the request is then
 * read as of the higher of the two.
 * The family is network-namespace aware: every filter lives in the netns of
 * the socket that created it and is invisible from any other netns.
 * Every command requires CAP_NET_ADMIN in the initial user namespace
 * (GENL_ADMIN_PERM), reads included: filter names and sizes are
 * configuration, contents are data. Loaded with userns_admin=1, CAP_NET_ADMIN
 * in the user namespace owning the socket's network namespace suffices
 * (GENL_UNS_ADMIN_PERM: a container's root, in its own namespaces).
 *
 * Every attribute is validated strictly by a policy: unknown attributes,
 * wrong lengths and out-of-range values are refused with an extended ACK
 * message naming the offending attribute. A refused request changes nothing.
 * Nests must carry NLA_F_NESTED. Filter names are 1..KBLOOM_NAME_MAX-1
 * printable ASCII bytes (0x21-0x7E) other than '/'. A request gets one reply (or only
 * the ACK); replies carry the request's command number, GET's dumps
 * KBLOOM_CMD_GET. CAPACITY 0 means "not given".
 *
 * Commands
 * --------
 * KBLOOM_CMD_CREATE  (doit)
 *	Request: NAME, TYPE, BITS (m, the number of cells), HASHES (k);
 *	optional HASH_KEY (16 bytes; a random key is drawn when absent),
 *	HASH_FN (enum kbloom_hash_fn, SipHash-2-4 when absent; not for
 *	transforms, whose records have their own hashing), CAPACITY (the
 *	design capacity, kept only to be reported back), and
 *	the type's own parameters (see enum kbloom_type): COUNTER_BITS,
 *	UPDATE, DECREMENT, SUBTABLES, BUCKET_CELLS, FP_BITS, DIMS, GROWTH,
 *	TIGHTEN. A parameter that the type does not take is refused. For
 *	a scalable filter CAPACITY is required and is slice 0's capacity.
 *	Errors: EEXIST (name taken in this netns), ENOSPC (too many filters in
 *	this netns), ENOMEM (allocation failed or the module's memory limit,
 *	module parameter max_memory, would be exceeded), EINVAL (bad values).
 *	Idempotent create: with FLAGS KBLOOM_F_EXIST, a filter of that name
 *	with the very parameters asked for (type, shape, HASH_FN, CAPACITY, DIMS
 *	names, WINDOWS, INTERVAL and, when given, HASH_KEY; an absent
 *	HASH_KEY matches any) is success and nothing changes; one that
 *	differs is EEXIST with an extack message naming the first difference
 *	("... with other bits (BITS)"), checked under the namespace's lock,
 *	so no other create races it. Not with KBLOOM_F_LOAD (EINVAL).
 *	(Not netlink's NLM_F_CREATE/NLM_F_EXCL: the generic netlink core
 *	refuses every nlmsg_flags bit but REQUEST, ACK, ECHO and DUMP for a
 *	family that validates strictly, as this one does.)
 *
 * KBLOOM_CMD_DESTROY (doit)
 *	Request: NAME, or FLAGS with KBLOOM_F_ALL to destroy every filter of
 *	the netns. ENOENT when the name is unknown.
 *
 * KBLOOM_CMD_GET     (doit and dumpit)
 *	doit: request NAME, reply one filter description.
 *	dump: no attribute, one message per filter of the netns. A dump that
 *	straddles a create or destroy is flagged NLM_F_DUMP_INTR; the tool
 *	retries it.
 *	A filter description carries NAME, TYPE, BITS, HASHES, CAPACITY,
 *	HASH_FN (but transforms), the type's parameters, MEMORY (bytes of
 *	kernel memory), FILL (cells
 *	set or non-zero; summed over dimensions for multi), SATURATED
 *	(counters at their maximum), GENERATION and a nested STATS; a
 *	scalable filter also OVERFLOW, GROW_ERROR and SLICE_LIST, a dcf
 *	OFV_BITS, LOST and GROW_ERROR. The hash
 *	key is never reported.
 *
 * KBLOOM_CMD_ADD     (doit)
 *	Request: NAME and KEYS, a nest holding one or more KBLOOM_KEYS_A_KEY
 *	attributes (1..KBLOOM_KEY_MAX bytes each). All keys of a message are
 *	added; the reply is the ACK. A message holds as many keys as fit; the
 *	tool splits large batches across messages. ENOSPC from a scalable
 *	filter that cannot grow means the keys were added beyond a full
 *	slice (see KBLOOM_TYPE_SCALABLE).
 *	For a multi filter each key is a KBLOOM_KEYS_A_TUPLE instead: a nest
 *	whose attribute types are dimension numbers 1..dims (the order given
 *	at create), each holding that dimension's value (1..KBLOOM_KEY_MAX
 *	bytes). ADD needs every dimension; TEST any non-empty subset (present
 *	when every given dimension's sub-filter holds its value).
 *
 * KBLOOM_CMD_TEST    (doit)
 *	Request: as ADD. Reply: a KBLOOM_CMD_TEST message with NAME, NKEYS,
 *	NPRESENT and RESULT, a bitmap of ceil(NKEYS / 8) bytes where bit i
 *	(byte i / 8, bit i % 8, least significant first) is set when key i of
 *	the request is present (possibly a false positive) and clear when it
 *	is certainly absent.
 *
 * KBLOOM_CMD_CLEAR   (doit)
 *	Request: NAME. Empties the filter; its shape and hash key are kept.
 *
 * KBLOOM_CMD_DEL     (doit; counting, dleft and dcf)
 *	Request: as ADD. Keys are deleted in order; a key that is certainly
 *	absent stops the request with ENOENT and the extack's offset
 *	pointing at that key inside KEYS; the keys before it already deleted
 *	are put back, so a refused request changes nothing. Saturated
 *	counters are never decremented. Refused (EOPNOTSUPP) on
 *	conservative-update filters, where a delete could create a false
 *	negative.
 *
 * KBLOOM_CMD_COUNT   (doit; counting, dleft and dcf)
 *	Request: as TEST. Reply: NAME, NKEYS, NPRESENT (keys counted above
 *	0) and COUNTS, NKEYS u32 values in
 *	host byte order: the count of each key (the minimum of its k
 *	counters; never below its true count unless a counter saturated).
 *
 * KBLOOM_CMD_MERGE   (doit)
 *	Request: NAME (the destination), SRC (the source, same netns),
 *	MERGE_OP. Both filters must have the same type, shape and hash key
 *	(else EINVAL, and nothing changes). OR: bit types set the union of
 *	bits, counting types add counters (saturating). AND: bit types keep
 *	the common bits, counting types keep the minimum. Not for dleft,
 *	stable, scalable or dcf (EOPNOTSUPP).
 *
 * KBLOOM_CMD_ESTIMATE (doit)
 *	Request: NAME and SRC, two filters of the same type, shape and hash
 *	key. Reply: NAME, FILL (of NAME), SRC_FILL, UNION_FILL (cells set in
 *	either). The tool derives the union and intersection estimates.
 *
 * Time-paged filters (windows)
 * ----------------------------
 * CREATE with WINDOWS (W, 2..KBLOOM_WINDOWS_MAX) and INTERVAL (ms) makes a
 * ring of W tables of the same shape and hash key. The newest ("current")
 * window takes every insert; every INTERVAL ms the current window closes,
 * a new one opens and, once W windows are retained, the oldest is dropped.
 * In a netns that the initial user namespace does not own (a container's,
 * see userns_admin), INTERVAL is at least KBLOOM_USERNS_INTERVAL_MIN: its
 * rotations run in kernel workers charged to nobody.
 * The table that replaces it was emptied off the packet path beforehand and
 * is swapped in under RCU, so no insert waits for a clear and none lands in
 * a table being cleared. Windows are numbered by a sequence ID (1 for the
 * first, +1 per rotation) and keep their wall-clock START and END
 * (CLOCK_REALTIME ns; END 0 while open) and the keys inserted (PACKETS).
 * On a windowed filter ADD goes to the current window; TEST answers present
 * when any retained window holds the key; COUNT sums over the windows; CLEAR
 * empties every window; GET's FILL and SATURATED are the current window's
 * and WINDOW_LIST (in GET's doit reply, not in its dump) describes every
 * window; both carry WINDOWS and INTERVAL. DEL, MERGE and ESTIMATE are
 * refused (EOPNOTSUPP). Memory is (W + 1) tables: W retained plus the one
 * being emptied.
 *
 * KBLOOM_CMD_QUERY   (doit)
 *	Request: as TEST. Reply: NAME, NKEYS, WINDOW_LIST (the windows, newest
 *	first, as they were when the keys were tested) and WINDOW_HITS: for
 *	each key i, ceil(nwin / 8) bytes (nwin = windows in WINDOW_LIST) in
 *	which bit j (byte j / 8, bit j % 8) is set when window j of the list
 *	holds key i. On a filter without windows the list has one window.
 *
 * KBLOOM_CMD_STATUS  (doit)
 *	No attribute. Reply: NFILTERS and MEM_NETNS (filters and bytes of
 *	this netns), MEM_MAPPED_GONE (the part of MEM_NETNS that destroyed
 *	filters' mappings hold: a filter's pages, its MEMORY and its
 *	mapping header stay charged, here and to the owner and the module,
 *	until the last mapping of them is unmapped), MEM_ALL (bytes of
 *	every netns; only to callers with CAP_NET_ADMIN in the initial
 *	user namespace, as is the in-use figure of a refused CREATE's
 *	message), MEM_LIMIT (the module
 *	parameter max_memory, settable at runtime in
 *	/sys/module/kbloom/parameters/) and MAX_FILTERS (max_filters, per
 *	netns). In a netns of a user namespace other than the initial one,
 *	also the figures of its owner (the user who made the top user
 *	namespace above it, who may make any number of namespaces):
 *	USER_FILTERS and MEM_USER (filters and bytes over all the owner's
 *	namespaces), USER_MAX_FILTERS (user_max_filters) and MEM_USER_LIMIT
 *	(user_memory_percent of max_memory). All owners together may use
 *	userns_memory_percent of max_memory, so the initial namespace keeps
 *	the rest. A CREATE past any limit fails (ENOMEM, ENOSPC) with an
 *	extack message naming the limit; 6.2+ kernels format the bytes the
 *	filter needs and what is in use into it (6.1 gives only the
 *	KBLOOM_MSG_* text of the limit: bloomctl adds STATUS's figures).
 *	Growth (scalable, dcf) is charged likewise. A CREATE whose memory the
 *	memory cgroup refuses fails with ENOMEM and, on 6.2+, "cannot
 *	allocate filter memory: filter needs N B" (6.1: KBLOOM_MSG_NOMEM
 *	alone).
 *	The reply also has VERSION, the module's version (its MODULE_VERSION,
 *	PACKAGE_VERSION of the sources' dkms.conf): a NUL-terminated string
 *	of at most KBLOOM_VERSION_MAX bytes with the NUL; a module older
 *	than this attribute replies without it.
 *
 * Moving contents in and out (save, restore, archive)
 * ----------------------------------------------------
 * KBLOOM_CMD_EXPORT  (dumpit)
 *	Request: NAME, optional WINDOW (a window ID; default the current
 *	window, or the only table). The first reply is the filter's
 *	description as GET's dump gives it plus HASH_KEY, CELL_BYTES (bytes of
 *	cell memory) and a WINDOW_LIST holding the exported window; then
 *	messages of OFFSET and CELLS, in order, covering 0..CELL_BYTES. Cells
 *	are the engine's memory: unsigned longs (64-bit, little-endian on the
 *	x86-64 kernels kbloom is built for). ENOENT when no retained window has
 *	that ID; ESTALE when the window is dropped by a rotation during the
 *	export. The current window is exported while it takes inserts: every
 *	key added before the export began is in what it returns. A CLEAR, a
 *	MERGE into the filter, or the filter destroyed and created again
 *	under its name between two messages of the dump ends it with EAGAIN
 *	("the filter was cleared, merged into or made anew during the
 *	export"): the cells so far belong to another image.
 *	Types that grow: the cells of a scalable filter are every slice's
 *	bits, slice 0 first, each slice's BITS / 8 bytes (the head's
 *	SLICE_LIST gives each slice's BITS, HASHES, CAPACITY, KEYS and which
 *	is CURRENT, plus OVERFLOW, GROWTH and TIGHTEN: all a load needs, as
 *	slice i hashes by its place i); those of a dcf are its CBFV then its
 *	OFV (the head's COUNTER_BITS and OFV_BITS: m counters of each, packed
 *	in 32-bit little-endian words, each vector padded to 8 bytes), and
 *	its LOST. The export holds the filter's growth off while it copies,
 *	and a slice made, the current slice moving on or the OFV widened
 *	between two messages of the dump ends it with EAGAIN ("the filter
 *	grew during the export"): never a mixed image; the tool exports
 *	again.
 *
 * KBLOOM_CMD_CREATE with FLAGS KBLOOM_F_LOAD
 *	Creates the filter empty and reserved for the requesting socket:
 *	every other request naming it is refused (ENOENT, "being restored"),
 *	and a dump does not list it, until an IMPORT with KBLOOM_F_LOADED
 *	completes it. If the socket closes before that, the filter is
 *	destroyed: a restore that dies half-way leaves nothing behind. Not
 *	with WINDOWS.
 *	A scalable filter takes its saved layout: SLICE_LIST (required; 1 to
 *	KBLOOM_SLICES_MAX nests of BITS, HASHES, CAPACITY, optional KEYS,
 *	exactly one with CURRENT; FILL is refused), each slice's BITS,
 *	HASHES and CAPACITY what the plan gives for its place, and optional
 *	OVERFLOW. A dcf takes optional OFV_BITS (1, 2, 4, 8, 16 or 32;
 *	default 1) and LOST. Every slice, or the OFV of that width, is made
 *	and charged to max_memory (as growth is) at the CREATE, empty;
 *	CELL_BYTES is then what EXPORT gave. In a CREATE of another type or
 *	without LOAD these attributes are refused; every refusal has an
 *	extack message naming the attribute, and leaves nothing.
 *
 * KBLOOM_CMD_IMPORT  (doit)
 *	Request: NAME, and OFFSET + CELLS (a chunk of cell memory) and/or
 *	FLAGS with KBLOOM_F_LOADED. Chunks must arrive in order from 0 with no
 *	gap or overlap (EINVAL otherwise); LOADED is refused (EINVAL) until
 *	all CELL_BYTES have arrived, and then makes the filter usable. Only
 *	the socket that created the filter with KBLOOM_F_LOAD may IMPORT.
 *	OFFSET counts in the stream EXPORT gives (a chunk may span slices,
 *	or the CBFV and the OFV). A loaded dcf whose OFV holds a counter at
 *	half its maximum asks to widen, as the carry that put it there did.
 *
 * Attaching to the packet path
 * ----------------------------
 * KBLOOM_CMD_ATTACH  (doit)
 *	Request: NAME, HOOK, DIGEST (none for a transforms table, which
 *	takes HOOK POSTROUTING and FAMILY ANY or IPV4 only: it records NAT
 *	from conntrack there, and tunnels at LOCAL_IN, where IFNAME is the
 *	input device; struct kbloom_xlate); optional FAMILY (default ANY)
 *	and IFNAME
 *	(only packets whose input device, or output device at OUTPUT and
 *	POSTROUTING, is IFNAME). Registers a netfilter hook in the filter's
 *	netns that reduces every packet to a key by the digest mode and adds
 *	it to the filter (its current window). Keys may wait in per-CPU
 *	queues on their way in; every request that reads or changes the
 *	filter (GET, TEST, COUNT, QUERY, EXPORT, CLEAR, DEL, MERGE, ESTIMATE,
 *	DETACH) and every rotation adds them first, so it sees every packet
 *	that passed the hook before it began. One attachment per filter
 *	(EBUSY; with FLAGS KBLOOM_F_EXIST, the only flag ATTACH takes, an
 *	attachment of the same HOOK, FAMILY, DIGEST and IFNAME is success and
 *	one that differs is EBUSY naming the attribute); digest MULTI needs
 *	a multi filter of 3 dimensions (src, dst, dst port), the other modes
 *	a filter that is not multi (EINVAL). The
 *	attachment goes when the filter is destroyed or the netns dies
 *	(at INGRESS and EGRESS, also when its device goes).
 *	Hook priorities: before defragmentation and conntrack everywhere but
 *	POSTROUTING, where it runs last, so packets are seen as on the wire;
 *	at INGRESS and EGRESS first of all (INT_MIN, before any flowtable or
 *	nftables chain of the device, unless one was given INT_MIN too and
 *	registered first). INGRESS and EGRESS need IFNAME (EINVAL) and a
 *	kernel with their netfilter hooks (EOPNOTSUPP).
 *
 * KBLOOM_CMD_DETACH  (doit)
 *	Request: NAME. ENOENT when the filter is not attached. When DETACH
 *	returns, no packet is being digested into the filter any more.
 *
 *	GET describes an attached filter with a nested ATTACH: HOOK, FAMILY,
 *	DIGEST, IFNAME (if given; the device's name of now), BYPASS (what
 *	may carry packets past it now: KBLOOM_BYPASS_*), and per-CPU
 *	counters summed on read:
 *	SEEN (packets that reached the hook and matched device and family),
 *	DIGESTED (keys added) and SKIPPED, a nest of u64 counters whose
 *	attribute type is the enum kbloom_skip reason.
 *
 * KBLOOM_CMD_DIGEST  (doit)
 *	Request: PACKET (bytes from the network header on), DIGEST, optional
 *	LINEAR (bytes of PACKET put in the skb's linear area; the rest goes to
 *	page fragments, as a NIC would leave it). The kernel builds an skb and
 *	digests it exactly as its hooks do. Reply: KEYS with one KEY (or, for
 *	MULTI, one TUPLE) holding the digest, or SKIP with the reason the
 *	hooks would skip the packet. For tools and tests: the proof that the
 *	tool's digests are the kernel's, byte for byte.
 *
 * Digest formats (network byte order, as on the wire)
 * ---------------------------------------------------
 * SPIE, IPv4: the 20-byte header with TOS (byte 1), TTL (byte 8) and the
 *	header checksum (bytes 10-11) zeroed, options left out, followed by
 *	the first min(8, total length - header length) bytes after the
 *	header and its options: 28 bytes for most packets. Fragments are
 *	digested as they are (each fragment is a packet on the wire).
 * SPIE, IPv6: the 40-byte header with the traffic class (the 8 bits after
 *	the version) and the hop limit (byte 7) zeroed, followed by the
 *	first min(8, payload length) bytes after it (extension headers
 *	included): 48 bytes for most packets.
 * FLOW: protocol (1 byte), source and destination address (4 or 16 bytes
 *	each), source and destination port (2 bytes each; 0 for protocols
 *	without ports: anything but TCP, UDP, UDP-Lite, SCTP and DCCP):
 *	13 bytes for IPv4, 37 for IPv6. Non-first fragments are skipped
 *	(FRAGMENT): their ports are not in the packet.
 * SRC, DST: the source or destination address (4 or 16 bytes).
 * MULTI: a tuple of dimension 1 = source address, 2 = destination address,
 *	3 = destination port (2 bytes, 0 without ports).
 * Lengths come from the IP header (total / payload length), never from the
 * captured or received size, so link-layer padding does not change a digest.
 * A TCP packet the stack carries as one GSO super-packet is digested as the
 * segments that go on the wire (IPv4 ID + i unless the ID is fixed, TCP
 * sequence + i * gso_size, each segment's length); so is a tunnel's (IPIP,
 * IPv6 in IPv4 or IPv6, GRE, VXLAN and other UDP tunnels, over IPv4 or
 * IPv6) carrying TCP: the outer IPv4 ID + i, the outer lengths and
 * checksums (GRE's, UDP's) as segmentation writes them, the inner packet
 * as above. Other GSO packets are skipped (GSO).
 * Unsure form: GRO merges a tunnel's packets whose outer IPv4 header has
 * DF without checking their outer IDs, and the router sends segment i on
 * with the first's ID + i, which the routers before it may not have seen.
 * Such a segment (i > 0, arrived merged) is also added in SPIE mode in its
 * unsure form: the outer IPv4 ID zeroed and the reserved flag (0x8000 of
 * bytes 6-7, which no sender sets, RFC 791) set before digesting. A
 * trace that finds a packet in its unsure form at a router and nowhere
 * before it says it is not traceable past that router, rather than
 * naming it the ingress.
 *
 * Events
 * ------
 * The multicast group KBLOOM_MCGRP_EVENTS of the family announces, to
 * listeners in the filter's netns (CAP_NET_ADMIN there to join) that may
 * also read its filters (the family's rule: with userns_admin=0, in a
 * netns of a user namespace other than the initial one, only callers
 * with CAP_NET_ADMIN in the initial one; 6.1 cannot tell its listeners
 * apart and sends no events in such a netns):
 *	KBLOOM_CMD_CREATE   NAME, TYPE: a filter was created (or restored);
 *	KBLOOM_CMD_DESTROY  NAME, TYPE: a filter was destroyed;
 *	KBLOOM_CMD_ROTATED  NAME, WINDOW_LIST with the window that closed and
 *			    then the one that opened, and SATURATED (counters
 *			    at their maximum in the closed window);
 *	KBLOOM_CMD_DETACH   NAME, HOOK, IFNAME: an attachment at HOOK ingress
 *			    or egress went with its device (unregistered, or
 *			    moved to another netns); the filter stays, not
 *			    attached.
 *
 * Hashing (so that tools can compute probe positions offline)
 * -----------------------------------------------------------
 * h1 = SipHash-2-4(hash key, key bytes), or SipHash-1-3 for a filter
 * created with HASH_FN = KBLOOM_HASH_FN_SIPHASH13 (the 64-bit output
 * SipHash of Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * INDOCRYPT 2012, with one compression and three finalization rounds);
 * the 16-byte hash key is read as two little-endian 64-bit words.
 * h2 = kbloom_mix64(h1) (see the engine's hash.h). Probe positions by
 * enhanced double hashing over m = BITS:
 *	x = h1 * m >> 64, y = h2 * m >> 64, probe 0 = x, then for i = 1..k-1:
 *	x = (x + y) mod m, y = (y + i) mod m, probe i = x.
 */
#ifndef _UAPI_LINUX_KBLOOM_H
#define _UAPI_LINUX_KBLOOM_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define KBLOOM_GENL_NAME	"kbloom"
#define KBLOOM_GENL_VERSION	2	/* 2: HASH_FN (see Family) */
#define KBLOOM_MCGRP_EVENTS	"events"	/* multicast group: see Events */

/* Limits, enforced by the attribute policies and the engine. */
#define KBLOOM_NAME_MAX		32	/* bytes including the trailing NUL */
#define KBLOOM_VERSION_MAX	32	/* STATUS VERSION, bytes with the NUL */
#define KBLOOM_KEY_MAX		1024	/* bytes in one key */
#define KBLOOM_HASH_KEY_LEN	16	/* bytes in a SipHash key */
#define KBLOOM_HASHES_MAX	32	/* k */
#define KBLOOM_BITS_MIN		64ULL	/* m */
#define KBLOOM_BITS_MAX		_BITULL(33)	/* m: 1 GiB of bits, kvmalloc's limit */
#define KBLOOM_MEM_MAX		_BITULL(30)	/* bytes of cells in one filter */
#define KBLOOM_DIMS_MAX		8	/* dimensions of a multi filter */
#define KBLOOM_DECREMENT_MAX	65536	/* stable: cells decremented per insert */
#define KBLOOM_DIM_NAME_MAX	16	/* bytes including the trailing NUL */
#define KBLOOM_WINDOWS_MAX	256	/* windows of a time-paged filter */
#define KBLOOM_INTERVAL_MIN	10ULL	/* ms: shortest window */
#define KBLOOM_USERNS_INTERVAL_MIN 1000ULL /* ms: ... in a container's netns */
#define KBLOOM_INTERVAL_MAX	(366ULL * 86400 * 1000)	/* ms: longest window */
#define KBLOOM_PACKET_MAX	65531	/* bytes of a PACKET: what an attribute holds */
#define KBLOOM_IFNAME_MAX	16	/* IFNAMSIZ */
#define KBLOOM_GROWTH_MIN	2	/* scalable: s */
#define KBLOOM_GROWTH_MAX	16
#define KBLOOM_TIGHTEN_MIN	10000	/* scalable: r = 0.01, in millionths */
#define KBLOOM_TIGHTEN_MAX	990000	/* r = 0.99 */
#define KBLOOM_SLICES_MAX	32	/* scalable: slices at most */
#define KBLOOM_SUBTABLES_MIN	2	/* dleft: d */
#define KBLOOM_SUBTABLES_MAX	8
#define KBLOOM_BUCKET_CELLS_MAX	16	/* dleft: c, from 1 */
#define KBLOOM_FP_BITS_MIN	4	/* dleft: fingerprint bits */
#define KBLOOM_FP_BITS_MAX	24

/*
 * The extack texts of a CREATE refused at a limit where the kernel has no
 * formatted messages (6.1; see KBLOOM_CMD_STATUS): a tool may match them.
 */
#define KBLOOM_MSG_MAX_MEMORY	"module memory limit max_memory reached"
#define KBLOOM_MSG_MAX_FILTERS	"namespace holds max_filters filters already"
#define KBLOOM_MSG_USERNS_MEMORY \
	"user namespaces' memory limit userns_memory_percent reached"
#define KBLOOM_MSG_USER_MEMORY	"this user's memory limit user_memory_percent reached"
#define KBLOOM_MSG_USER_FILTERS	"this user's namespaces hold user_max_filters filters already"
/* ... and one refused by the memory cgroup (or with no memory free) */
#define KBLOOM_MSG_NOMEM	"cannot allocate filter memory"

enum kbloom_cmd {
	KBLOOM_CMD_UNSPEC,
	KBLOOM_CMD_CREATE,
	KBLOOM_CMD_DESTROY,
	KBLOOM_CMD_GET,
	KBLOOM_CMD_ADD,
	KBLOOM_CMD_TEST,
	KBLOOM_CMD_CLEAR,
	KBLOOM_CMD_DEL,
	KBLOOM_CMD_COUNT,
	KBLOOM_CMD_MERGE,
	KBLOOM_CMD_ESTIMATE,
	KBLOOM_CMD_QUERY,
	KBLOOM_CMD_ATTACH,
	KBLOOM_CMD_DETACH,
	KBLOOM_CMD_DIGEST,
	KBLOOM_CMD_EXPORT,
	KBLOOM_CMD_IMPORT,
	KBLOOM_CMD_ROTATED,	/* event only */
	KBLOOM_CMD_STATUS,
	__KBLOOM_CMD_MAX
};

#define KBLOOM_CMD_MAX (__KBLOOM_CMD_MAX - 1)

/*
 * Filter types (KBLOOM_A_TYPE). BITS is always the number of cells m; the
 * parameters each type takes are listed beside it.
 */
enum kbloom_type {
	KBLOOM_TYPE_UNSPEC,
	/* Bit array, k probes anywhere in it. */
	KBLOOM_TYPE_BLOOM,
	/*
	 * k slices of s = m/k bits (m a multiple of k), probe i in slice i:
	 * position i * s + x_i, x_i the walk of the Hashing section above
	 * with m replaced by s (and y reduced mod s with a true modulo).
	 */
	KBLOOM_TYPE_PARTITIONED,
	/*
	 * m/512 blocks of one 64-byte cache line (m a multiple of 512): block
	 * h1 * (m/512) >> 64, then k probes inside it by double hashing over
	 * 512 from h2: x = h2 & 511, y = (h2 >> 9) | 1 (odd, so k <= 32 probes
	 * are distinct), probe i = (x + i * y) & 511.
	 */
	KBLOOM_TYPE_BLOCKED,
	/*
	 * m saturating counters of COUNTER_BITS (4, 8 or 16) bits, probes as
	 * bloom. UPDATE selects plain (increment all k) or conservative
	 * (increment only the minimal ones). Count = min of the k counters.
	 */
	KBLOOM_TYPE_COUNTING,
	/*
	 * d-left counting filter: SUBTABLES (d, 2..8) tables of buckets of
	 * BUCKET_CELLS (1..16) cells; a cell is an FP_BITS (4..24)
	 * fingerprint and an 8-bit counter. m = total cells, a multiple of
	 * d * BUCKET_CELLS. HASHES must be 1 (one hash gives d buckets and
	 * the fingerprint). When all d buckets of a new key are full, a cell
	 * of its leftmost bucket becomes a sticky overflow cell: keys of that
	 * bucket then test present and, without a cell of their own, count
	 * 255 and are left unchanged by DEL (which succeeds). SATURATED
	 * includes these cells; only CLEAR removes them.
	 */
	KBLOOM_TYPE_DLEFT,
	/*
	 * Stable Bloom filter (Deng & Rafiei): m cells of COUNTER_BITS (1, 2,
	 * 4 or 8) bits; each insert first decrements DECREMENT (P,
	 * 1..KBLOOM_DECREMENT_MAX) consecutive cells from a random start,
	 * then sets its k cells to the maximum.
	 */
	KBLOOM_TYPE_STABLE,
	/* DIMS (1..KBLOOM_DIMS_MAX) bloom sub-filters of m bits and k hashes. */
	KBLOOM_TYPE_MULTI,
	/*
	 * Scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison,
	 * IPL 2007): a list of bloom "slices" that grows with the keys.
	 * CREATE gives slice 0: BITS m0, HASHES k0 and CAPACITY n0
	 * (required, >= 1), plus GROWTH s (2..16) and TIGHTEN r (in
	 * millionths, KBLOOM_TIGHTEN_MIN..MAX). Slice i holds
	 *	n_i = n0 s^i keys in
	 *	m_i = s^i m0 + floor(i n_i E), E = log2(1/r) / ln 2
	 *	      (bits per key grow by E per slice), rounded up to a
	 *	      multiple of 64,
	 *	k_i = k0 + floor(i log2(1/r) + 1/2),
	 * so its false positive rate is about P0 r^i when slice 0's is P0,
	 * and the compound rate 1 - prod(1 - P0 r^i) stays below
	 * P0 / (1 - r) however many keys arrive: a tool sizes slice 0 for
	 * P0 = P (1 - r) to keep a target P. The kernel computes log2(1/r)
	 * and E in 32.32 fixed point (integer log2 by repeated squaring,
	 * 1/ln 2 = 0x171547652 / 2^32); GET reports each slice as made.
	 * Slice i probes as a bloom filter of m_i bits from its own hash
	 * pair: h1' = h1 for slice 0, h1' = kbloom_mix64(h1 ^ (i << 48))
	 * for i >= 1, h2' = kbloom_mix64(h1'), so slices answer
	 * independently.
	 * ADD skips a key present in an older slice and otherwise adds it to
	 * the current (newest active) slice; a key that set a new bit counts
	 * towards that slice's capacity (KEYS). TEST asks every slice,
	 * newest first: a test of an absent key costs one bloom test per
	 * slice, and a filter of n keys has about log_s(n (s-1)/n0 + 1)
	 * slices.
	 * Growth never allocates where it may not sleep: when the current
	 * slice reaches half its capacity a work item (process context)
	 * allocates the next slice, charged to max_memory and to the memory
	 * cgroup of the process that created the filter, and publishes it;
	 * the add that finds the current slice full and the next one ready
	 * makes it current (a compare-and-exchange, no lock). Adds that find
	 * the current slice full and no next one yet (the packet path
	 * outrunning the work item) still go into the current slice: no key
	 * is ever lost, each is counted in OVERFLOW. ADD over netlink runs in
	 * process context and allocates the next slice itself when the
	 * current one is full, so it never overflows while the filter can
	 * grow. When a slice cannot be had (GROW_ERROR, enum
	 * kbloom_grow: max_memory, the filter's KBLOOM_MEM_MAX bytes,
	 * KBLOOM_SLICES_MAX slices or a slice past KBLOOM_BITS_MAX /
	 * KBLOOM_HASHES_MAX, or the allocation failed) keys keep going into
	 * the last slice as OVERFLOW. Growth stops until CLEAR, except after
	 * GROW_MEMORY_LIMIT and GROW_NOMEM, which the module tries again by
	 * itself 1, 2, 4 ... 64 s later (the same for a dcf's OFV), so the
	 * filter grows on once memory is there. Meanwhile TEST and the
	 * rest keep working, and an ADD that put any key beyond
	 * a full slice returns ENOSPC with the reason (its keys were all
	 * added: the one case where an error does not mean "nothing
	 * changed"). CLEAR empties every slice and starts again from slice
	 * 0; slices already made stay (and stay charged) for reuse. MEMORY
	 * is what is charged now; FILL sums the slices' bits set;
	 * SLICE_LIST describes each slice. No WINDOWS, no DEL/COUNT, no
	 * MERGE/ESTIMATE. EXPORT gives every slice; a LOAD takes the saved
	 * slices (SLICE_LIST, OVERFLOW) and rebuilds the filter exactly;
	 * its growth starts afresh (GROW_ERROR is not saved).
	 */
	KBLOOM_TYPE_SCALABLE,
	/*
	 * Dynamic count filter (Aguilar-Saborit, Trancoso, Muntes-Mulero,
	 * Larriba-Pey, "Dynamic Count Filters", SIGMOD Record 35(1), 2006):
	 * probes as bloom; cell i's count is OFV[i] * 2^x + CBFV[i], where
	 * the CBFV holds m
	 * counters of COUNTER_BITS x (2, 4 or 8) bits and the overflow
	 * vector OFV m counters of OFV_BITS y bits, y = 1 at first and
	 * doubled (2, 4, ..., 32) as counts grow. Counts are exact (no
	 * saturation at 2^x) while the OFV keeps up. Count = min of the k
	 * cells, as counting's; DEL as counting's plain update.
	 * Concurrency: a CBFV counter below its maximum changes by
	 * compare-and-exchange without a lock; a carry (a counter at
	 * 2^x - 1 goes to 0 and its OFV counter up) and a borrow (the
	 * reverse, on DEL) take the filter's sequence lock (a spinlock with
	 * interrupts off, never sleeping: fine on the packet path), and
	 * readers of a whole count retry while a writer was inside.
	 * Widening never allocates in atomic context: the carry that takes
	 * an OFV counter to half its maximum (2^(y-1)) kicks a work item
	 * that allocates the OFV of 2y bits (charged to max_memory and the
	 * creator's memcg), copies it under the lock (zero words skipped)
	 * and swaps it in; the old one is freed after an RCU grace period.
	 * ADD over netlink widens itself, in process context, before a key
	 * when one is due, so it stays exact. A carry that finds its OFV
	 * counter at the maximum (the packet path outran the work item by
	 * 2^(y-1) carries of one cell, or widening failed: GROW_ERROR, or y
	 * is 32) is dropped and counted in LOST: counts may then be low, so
	 * DEL is refused (EOPNOTSUPP) until CLEAR, and an ADD that lost an
	 * increment returns ENOSPC (its keys were added). MEMORY is the
	 * CBFV plus the current OFV. No WINDOWS, MERGE/ESTIMATE. EXPORT
	 * gives the CBFV then the OFV; a LOAD takes OFV_BITS and LOST and
	 * rebuilds every count exactly (GROW_ERROR is not saved).
	 */
	KBLOOM_TYPE_DCF,
	/*
	 * Transform records (the "transform lookup table" of SPIE: Snoeren,
	 * Partridge, Sanchez, Jones, Tchakountio, Schwartz, Kent, Strayer,
	 * "Single-Packet IP Traceback", IEEE/ACM ToN 10(6), 2002): what a
	 * router rewrote, so a traceback can invert it. m cells are records
	 * of struct kbloom_xlate (32 bytes), m a multiple of
	 * KBLOOM_XLATE_LINE (records per 64-byte line); HASHES must be 1.
	 * Written only by an attachment at HOOK POSTROUTING: there, after
	 * NAT, a packet whose conntrack entry has NAT gives one record per
	 * flow direction and window, as does a packet that came out of IPsec
	 * or a tunnel device no record undoes (an arrival record); the
	 * same attachment hooks LOCAL_IN, where each IPIP, GRE, VXLAN or GENEVE
	 * packet a tunnel device of the netns (up) takes gives one (struct
	 * kbloom_xlate): its addresses, kind and key (VXLAN: port and VNI),
	 * as the kernel's tunnel lookup matches them; packets no
	 * device takes are dropped by the kernel and recorded by no one.
	 * Tunnel records take at most half of a window's cells (then
	 * SKIPPED FULL): one a packet, they would crowd out the NAT
	 * records (one a flow) of a router that keeps both.
	 * A record lives in line h1 * (m / KBLOOM_XLATE_LINE) >> 64 of
	 * its key (KBLOOM_XLATE_KEY_LEN bytes: FAMILY, PROTO and the
	 * AFTER_* fields, hashed as a key) or one of the
	 * KBLOOM_XLATE_PROBES - 1 lines after it (wrapping); when all of
	 * them are taken the packet is counted in the attachment's SKIPPED
	 * FULL and nothing is recorded. FILL counts
	 * records, a window's PACKETS the records made in it. No ADD, TEST,
	 * DEL, COUNT, QUERY, MERGE or ESTIMATE (EOPNOTSUPP): tools read the
	 * records with EXPORT (each window's cells) and look them up
	 * themselves. Save, restore and archive as any table.
	 */
	KBLOOM_TYPE_TRANSFORMS,
	__KBLOOM_TYPE_MAX
};

#define KBLOOM_TYPE_MAX (__KBLOOM_TYPE_MAX - 1)

/* Counter update rules (KBLOOM_A_UPDATE, counting). */
enum kbloom_update {
	KBLOOM_UPDATE_PLAIN,		/* increment all k counters */
	KBLOOM_UPDATE_CONSERVATIVE,	/* increment only the minimal ones */
	__KBLOOM_UPDATE_MAX
};

#define KBLOOM_UPDATE_MAX (__KBLOOM_UPDATE_MAX - 1)

/*
 * The keyed hash of a filter's keys (KBLOOM_A_HASH_FN), chosen at create.
 * Both keep the hash key secret from whoever sends keys: without it no one
 * can pick keys that land on chosen cells (to fill a filter's few cells,
 * or to make a key look present). SipHash-2-4 is the PRF its authors
 * proposed, with a security margin; SipHash-1-3 (what the kernel's
 * hsiphash() is on 64-bit) has less margin and costs fewer cycles per key.
 */
enum kbloom_hash_fn {
	KBLOOM_HASH_FN_SIPHASH24,	/* the default; all older filters */
	KBLOOM_HASH_FN_SIPHASH13,
	__KBLOOM_HASH_FN_MAX
};

#define KBLOOM_HASH_FN_MAX (__KBLOOM_HASH_FN_MAX - 1)

/* Merge operations (KBLOOM_A_MERGE_OP). */
enum kbloom_merge_op {
	KBLOOM_MERGE_OR,
	KBLOOM_MERGE_AND,
	__KBLOOM_MERGE_MAX
};

#define KBLOOM_MERGE_MAX (__KBLOOM_MERGE_MAX - 1)

/* Netfilter hook points (KBLOOM_A_HOOK). */
enum kbloom_hook {
	KBLOOM_HOOK_UNSPEC,
	KBLOOM_HOOK_PREROUTING,
	KBLOOM_HOOK_INPUT,
	KBLOOM_HOOK_FORWARD,
	KBLOOM_HOOK_OUTPUT,
	KBLOOM_HOOK_POSTROUTING,
	/*
	 * The netdev family's hooks of one device (IFNAME required, EINVAL
	 * without): INGRESS sees every frame the device receives, after XDP
	 * and before an nftables flowtable (NF_NETDEV_INGRESS), so it also
	 * records the flows a flowtable forwards past prerouting and
	 * forward; EGRESS every frame it sends (NF_NETDEV_EGRESS), after
	 * postrouting, a flowtable's transmissions among them. Only IPv4
	 * and IPv6 frames (by their ethertype) are seen and digested, from
	 * the IP header on, as at the IP hooks. A kernel built without
	 * CONFIG_NETFILTER_INGRESS (or _EGRESS) refuses them, EOPNOTSUPP.
	 * The attachment goes when its device is unregistered or moves to
	 * another netns (see Events); a device renamed keeps it.
	 */
	KBLOOM_HOOK_INGRESS,
	KBLOOM_HOOK_EGRESS,
	/*
	 * The bridge family's forward hook (NF_BR_FORWARD, first of its
	 * hooks): every frame a Linux bridge of the netns forwards from one
	 * port to another, whatever br_netfilter says; IFNAME, when given,
	 * the input port. Only IPv4 and IPv6 frames are digested, as at the
	 * netdev hooks. A kernel without the bridge's netfilter family
	 * (CONFIG_NETFILTER_FAMILY_BRIDGE) refuses it, EOPNOTSUPP.
	 */
	KBLOOM_HOOK_BRIDGE_FORWARD,
	__KBLOOM_HOOK_MAX
};

#define KBLOOM_HOOK_MAX (__KBLOOM_HOOK_MAX - 1)

/* Address families an attachment sees (KBLOOM_A_FAMILY). */
enum kbloom_family {
	KBLOOM_FAMILY_ANY,
	KBLOOM_FAMILY_IPV4,
	KBLOOM_FAMILY_IPV6,
	__KBLOOM_FAMILY_MAX
};

#define KBLOOM_FAMILY_MAX (__KBLOOM_FAMILY_MAX - 1)

/* Digest modes (KBLOOM_A_DIGEST); formats above. */
enum kbloom_digest {
	KBLOOM_DIGEST_UNSPEC,
	KBLOOM_DIGEST_SPIE,
	KBLOOM_DIGEST_FLOW,
	KBLOOM_DIGEST_SRC,
	KBLOOM_DIGEST_DST,
	KBLOOM_DIGEST_MULTI,
	__KBLOOM_DIGEST_MAX
};

#define KBLOOM_DIGEST_MAX (__KBLOOM_DIGEST_MAX - 1)

/* Why a packet gave no digest (KBLOOM_A_SKIP, KBLOOM_ATTACH_A_SKIPPED). */
enum kbloom_skip {
	KBLOOM_SKIP_NONE,
	KBLOOM_SKIP_SHORT,	/* fewer bytes than the headers need */
	KBLOOM_SKIP_MALFORMED,	/* bad version, header or total length */
	KBLOOM_SKIP_FRAGMENT,	/* non-first fragment: no ports (FLOW, MULTI) */
	KBLOOM_SKIP_GSO,	/* a GSO packet other than TCP and UDP (UDP GRO fraglist) */
	/* Transforms attachments: */
	KBLOOM_SKIP_UNTRANSFORMED, /* no NAT on its conntrack entry (or
				    * none) and no arrival to record, an
				    * ICMP error about a flow; at
				    * LOCAL_IN: no IPIP, GRE or VXLAN we can record,
				    * or none a tunnel device here takes
				    */
	KBLOOM_SKIP_FULL,	/* its record's lines are all taken */
	__KBLOOM_SKIP_MAX
};

#define KBLOOM_SKIP_MAX (__KBLOOM_SKIP_MAX - 1)

/* Why a scalable filter (or a dcf's OFV) stopped growing (GROW_ERROR). */
enum kbloom_grow {
	KBLOOM_GROW_OK,			/* it grows as keys arrive */
	KBLOOM_GROW_MEMORY_LIMIT,	/* max_memory, or a user namespace
					 * owner's share, would be passed
					 */
	KBLOOM_GROW_FILTER_LIMIT,	/* KBLOOM_MEM_MAX bytes in the filter */
	KBLOOM_GROW_SHAPE_LIMIT,	/* KBLOOM_SLICES_MAX, BITS or HASHES;
					 * dcf: OFV counters of 32 bits
					 */
	KBLOOM_GROW_NOMEM,		/* the allocation failed */
	__KBLOOM_GROW_MAX
};

#define KBLOOM_GROW_MAX (__KBLOOM_GROW_MAX - 1)

/* Flags (KBLOOM_A_FLAGS). */
#define KBLOOM_F_ALL		_BITUL(0)	/* DESTROY: every filter */
#define KBLOOM_F_LOAD		_BITUL(1)	/* CREATE: to be IMPORTed */
#define KBLOOM_F_LOADED		_BITUL(2)	/* IMPORT: the load is complete */
#define KBLOOM_F_EXIST		_BITUL(3)	/* CREATE, ATTACH: may exist */
#define KBLOOM_F_MASK		(KBLOOM_F_ALL | KBLOOM_F_LOAD | \
				 KBLOOM_F_LOADED | KBLOOM_F_EXIST)

enum kbloom_attr {
	KBLOOM_A_UNSPEC,
	KBLOOM_A_PAD,
	KBLOOM_A_NAME,		/* NUL-terminated string, < KBLOOM_NAME_MAX */
	KBLOOM_A_TYPE,		/* u32, enum kbloom_type */
	KBLOOM_A_BITS,		/* u64, m: KBLOOM_BITS_MIN..KBLOOM_BITS_MAX */
	KBLOOM_A_HASHES,	/* u32, k: 1..KBLOOM_HASHES_MAX */
	KBLOOM_A_HASH_KEY,	/* binary, exactly KBLOOM_HASH_KEY_LEN */
	KBLOOM_A_CAPACITY,	/* u64, design capacity n (informational) */
	KBLOOM_A_FLAGS,		/* u32, KBLOOM_F_* */
	KBLOOM_A_KEYS,		/* nest of KBLOOM_KEYS_A_KEY */
	KBLOOM_A_NKEYS,		/* u32, reply: keys in the request */
	KBLOOM_A_NPRESENT,	/* u32, reply: keys found present */
	KBLOOM_A_RESULT,	/* binary, reply: presence bitmap */
	KBLOOM_A_MEMORY,	/* u64, reply: bytes of kernel memory */
	KBLOOM_A_FILL,		/* u64, reply: cells set */
	KBLOOM_A_GENERATION,	/* u64, reply: 1, +1 per CLEAR, MERGE into, IMPORT */
	KBLOOM_A_STATS,		/* nest of KBLOOM_STATS_A_*, reply */
	KBLOOM_A_COUNTER_BITS,	/* u32, counting: 4/8/16; stable: 1/2/4/8; dcf 2/4/8 */
	KBLOOM_A_UPDATE,	/* u32, enum kbloom_update (counting) */
	KBLOOM_A_DECREMENT,	/* u32, stable: cells decremented per insert */
	KBLOOM_A_SUBTABLES,	/* u32, dleft: d */
	KBLOOM_A_BUCKET_CELLS,	/* u32, dleft: cells per bucket */
	KBLOOM_A_FP_BITS,	/* u32, dleft: fingerprint bits */
	KBLOOM_A_DIMS,		/* nest of KBLOOM_DIMS_A_NAME (multi) */
	KBLOOM_A_SATURATED,	/* u64, reply: counters at their maximum */
	KBLOOM_A_COUNTS,	/* binary, reply: NKEYS u32 counts */
	KBLOOM_A_SRC,		/* string: the second filter (MERGE, ESTIMATE) */
	KBLOOM_A_MERGE_OP,	/* u32, enum kbloom_merge_op */
	KBLOOM_A_SRC_FILL,	/* u64, reply: FILL of SRC */
	KBLOOM_A_UNION_FILL,	/* u64, reply: cells set in NAME or SRC */
	KBLOOM_A_WINDOWS,	/* u32, W: 2..KBLOOM_WINDOWS_MAX (0/absent: none) */
	KBLOOM_A_INTERVAL,	/* u64, ms per window: KBLOOM_INTERVAL_MIN..MAX */
	KBLOOM_A_WINDOW_LIST,	/* nest of KBLOOM_A_WINDOW, reply */
	KBLOOM_A_WINDOW_HITS,	/* binary, QUERY reply: per-key window bitmaps */
	KBLOOM_A_HOOK,		/* u32, enum kbloom_hook */
	KBLOOM_A_FAMILY,	/* u32, enum kbloom_family */
	KBLOOM_A_DIGEST,	/* u32, enum kbloom_digest */
	KBLOOM_A_IFNAME,	/* string < KBLOOM_IFNAME_MAX: a device name */
	KBLOOM_A_ATTACH,	/* nest of KBLOOM_ATTACH_A_*, reply */
	KBLOOM_A_PACKET,	/* binary, 1..KBLOOM_PACKET_MAX: DIGEST request */
	KBLOOM_A_LINEAR,	/* u32, DIGEST: bytes in the linear area */
	KBLOOM_A_SKIP,		/* u32, reply: enum kbloom_skip */
	KBLOOM_A_WINDOW,	/* u64: a window ID (EXPORT) */
	KBLOOM_A_OFFSET,	/* u64: byte offset of CELLS in cell memory */
	KBLOOM_A_CELLS,		/* binary: a chunk of cell memory */
	KBLOOM_A_CELL_BYTES,	/* u64, reply: bytes of cell memory */
	KBLOOM_A_NFILTERS,	/* u32, STATUS: filters in this netns */
	KBLOOM_A_MAX_FILTERS,	/* u32, STATUS: max_filters */
	KBLOOM_A_MEM_NETNS,	/* u64, STATUS: bytes used by this netns */
	KBLOOM_A_MEM_ALL,	/* u64, STATUS: bytes used by every netns */
	KBLOOM_A_MEM_LIMIT,	/* u64, STATUS: max_memory */
	KBLOOM_A_GROWTH,	/* u32, scalable: s, GROWTH_MIN..MAX */
	KBLOOM_A_TIGHTEN,	/* u32, scalable: r in millionths, TIGHTEN_MIN..MAX */
	KBLOOM_A_OVERFLOW,	/* u64, reply (and LOAD): keys added beyond a full slice */
	KBLOOM_A_GROW_ERROR,	/* u32, reply: enum kbloom_grow */
	KBLOOM_A_SLICE_LIST,	/* nest of KBLOOM_SLICE_LIST_A_SLICE, reply and LOAD */
	KBLOOM_A_OFV_BITS,	/* u32, reply (and LOAD): dcf: bits per OFV counter */
	KBLOOM_A_LOST,		/* u64, reply (and LOAD): dcf: increments dropped */
	KBLOOM_A_USER_FILTERS,	/* u32, STATUS: filters of the netns's owner */
	KBLOOM_A_USER_MAX_FILTERS, /* u32, STATUS: user_max_filters */
	KBLOOM_A_MEM_USER,	/* u64, STATUS: bytes used by the owner */
	KBLOOM_A_MEM_USER_LIMIT, /* u64, STATUS: the owner's share */
	KBLOOM_A_VERSION,	/* string, STATUS: the module's version */
	KBLOOM_A_HASH_FN,	/* u32, enum kbloom_hash_fn (0/absent: SipHash-2-4) */
	KBLOOM_A_MEM_MAPPED_GONE, /* u64, STATUS: of MEM_NETNS, destroyed filters' still mapped */
	KBLOOM_A_CLIENT_VERSION, /* u8, request: the family version the client speaks */
	__KBLOOM_A_MAX
};

#define KBLOOM_A_MAX (__KBLOOM_A_MAX - 1)

enum kbloom_keys_attr {
	KBLOOM_KEYS_A_UNSPEC,
	KBLOOM_KEYS_A_KEY,	/* binary, 1..KBLOOM_KEY_MAX bytes */
	KBLOOM_KEYS_A_TUPLE,	/* nest: attribute type = dimension 1..dims */
	__KBLOOM_KEYS_A_MAX
};

#define KBLOOM_KEYS_A_MAX (__KBLOOM_KEYS_A_MAX - 1)

enum kbloom_dims_attr {
	KBLOOM_DIMS_A_UNSPEC,
	KBLOOM_DIMS_A_NAME,	/* string < KBLOOM_DIM_NAME_MAX, once per dim */
	__KBLOOM_DIMS_A_MAX
};

#define KBLOOM_DIMS_A_MAX (__KBLOOM_DIMS_A_MAX - 1)

enum kbloom_stats_attr {
	KBLOOM_STATS_A_UNSPEC,
	KBLOOM_STATS_A_PAD,
	KBLOOM_STATS_A_INSERTS,		/* u64: keys added (ADD, and digests of the hook) */
	KBLOOM_STATS_A_QUERIES,		/* u64: keys tested */
	KBLOOM_STATS_A_POSITIVES,	/* u64: tests answered present */
	KBLOOM_STATS_A_DELETES,		/* u64: keys deleted */
	__KBLOOM_STATS_A_MAX
};

#define KBLOOM_STATS_A_MAX (__KBLOOM_STATS_A_MAX - 1)

/* One window of KBLOOM_A_WINDOW_LIST (attribute type KBLOOM_WINDOW_A_*). */
enum kbloom_window_attr {
	KBLOOM_WINDOW_A_UNSPEC,
	KBLOOM_WINDOW_A_PAD,
	KBLOOM_WINDOW_A_ID,		/* u64: sequence number, 1 = first */
	KBLOOM_WINDOW_A_START,		/* u64: CLOCK_REALTIME ns it opened */
	KBLOOM_WINDOW_A_END,		/* u64: ns it closed, 0 while open */
	KBLOOM_WINDOW_A_PACKETS,	/* u64: keys inserted in it (as INSERTS) */
	KBLOOM_WINDOW_A_FILL,		/* u64: cells set in it */
	__KBLOOM_WINDOW_A_MAX
};

#define KBLOOM_WINDOW_A_MAX (__KBLOOM_WINDOW_A_MAX - 1)

/* KBLOOM_A_WINDOW_LIST holds one nest per window of this type. */
#define KBLOOM_WINDOW_LIST_A_WINDOW	1

/*
 * One slice of a scalable filter's KBLOOM_A_SLICE_LIST, oldest first. In
 * CREATE with FLAGS LOAD: BITS, HASHES, CAPACITY, KEYS and CURRENT.
 */
enum kbloom_slice_attr {
	KBLOOM_SLICE_A_UNSPEC,
	KBLOOM_SLICE_A_PAD,
	KBLOOM_SLICE_A_BITS,		/* u64: m_i */
	KBLOOM_SLICE_A_HASHES,		/* u32: k_i */
	KBLOOM_SLICE_A_CAPACITY,	/* u64: n_i */
	KBLOOM_SLICE_A_KEYS,		/* u64: keys counted in it */
	KBLOOM_SLICE_A_FILL,		/* u64: bits set (reply only) */
	KBLOOM_SLICE_A_CURRENT,		/* flag: the slice taking inserts */
	__KBLOOM_SLICE_A_MAX
};

#define KBLOOM_SLICE_A_MAX (__KBLOOM_SLICE_A_MAX - 1)

/* KBLOOM_A_SLICE_LIST holds one nest per slice of this type. */
#define KBLOOM_SLICE_LIST_A_SLICE	1

/* KBLOOM_A_ATTACH: an attachment and its counters. */
enum kbloom_attach_attr {
	KBLOOM_ATTACH_A_UNSPEC,
	KBLOOM_ATTACH_A_PAD,
	KBLOOM_ATTACH_A_HOOK,		/* u32, enum kbloom_hook */
	KBLOOM_ATTACH_A_FAMILY,		/* u32, enum kbloom_family */
	KBLOOM_ATTACH_A_DIGEST,		/* u32, enum kbloom_digest */
	KBLOOM_ATTACH_A_IFNAME,		/* string, when a device was given */
	KBLOOM_ATTACH_A_SEEN,		/* u64: packets that reached it */
	KBLOOM_ATTACH_A_DIGESTED,	/* u64: digests added */
	KBLOOM_ATTACH_A_SKIPPED,	/* nest: type = enum kbloom_skip, u64 */
	KBLOOM_ATTACH_A_BYPASS,		/* u32, KBLOOM_BYPASS_*: see below */
	__KBLOOM_ATTACH_A_MAX
};

#define KBLOOM_ATTACH_A_MAX (__KBLOOM_ATTACH_A_MAX - 1)

/*
 * KBLOOM_ATTACH_A_BYPASS: what, when GET asked, may carry packets past the
 * attachment, so that its "absent" cannot be trusted for them. The module
 * reads it from the kernel at each GET (0: nothing found). The devices
 * looked at: the attachment's IFNAME at PREROUTING, INPUT, FORWARD and
 * INGRESS (the input device), every device of the netns otherwise (at
 * POSTROUTING and EGRESS a packet from any device may be the one that
 * leaves). Nothing is reported at OUTPUT (locally made packets).
 *	FLOWTABLE    an nftables flowtable's hook on the netdev ingress of
 *		     a device: the flows it offloads skip PREROUTING, FORWARD
 *		     and POSTROUTING (reported there only: an INGRESS or
 *		     EGRESS attachment sees them). Found by the hook's
 *		     function (nf_flow_table's), through kallsyms: a kernel
 *		     without CONFIG_KALLSYMS reports no flowtable.
 *	XDP          an XDP program on a device (native, generic or
 *		     offloaded): it may drop, redirect or send back (XDP_TX)
 *		     before every netfilter hook
 *	HW_OFFLOAD   a device with tc hardware offload on (NETIF_F_HW_TC):
 *		     flows offloaded to it (tc flower skip_sw, a flowtable
 *		     with flags offload) never reach the software path
 */
#define KBLOOM_BYPASS_FLOWTABLE		_BITUL(0)
#define KBLOOM_BYPASS_XDP		_BITUL(1)
#define KBLOOM_BYPASS_HW_OFFLOAD	_BITUL(2)
#define KBLOOM_BYPASS_MASK		(KBLOOM_BYPASS_FLOWTABLE | \
					 KBLOOM_BYPASS_XDP | \
					 KBLOOM_BYPASS_HW_OFFLOAD)

/*
 * A transform record: the cells of a KBLOOM_TYPE_TRANSFORMS table, as
 * EXPORT gives them, in network byte order. Four kinds:
 * NAT (KIND SNAT and/or DNAT), per flow direction and window, made at
 *	POSTROUTING: a packet of a NAT'ed flow left the router as AFTER and
 *	had arrived as BEFORE: addresses and ports (for ICMP echo and echo
 *	reply the identifier in SPORT, DPORT 0; 0 for protocols without
 *	ports). FIRST: CLOCK_REALTIME seconds (low 32 bits) when it was made.
 *	IPv6 (FAMILY 6; nftables' ip6 and inet NAT): the addresses folded
 *	(as a key's: the XOR of their four 32-bit words), the ports after
 *	the extension headers (for ICMPv6 echo the identifier); each
 *	address the NAT rewrote, as it arrived (BEFORE) and as it left
 *	(AFTER: an ICMPv6 error about the flow is rewritten back to it), is
 *	an address record of the same window, made before it (one it kept
 *	has BEFORE's fold equal to AFTER's).
 *	KIND STATELESS with SNAT and/or DNAT: the same for a rewrite no
 *	conntrack entry holds (NPTv6, RFC 6296: ip6tables' SNPT and DNPT;
 *	nftables' stateless "ip6 saddr set"), seen by comparing the packet
 *	at POSTROUTING with what it was at PREROUTING (after defragmentation,
 *	before raw, conntrack and mangle): a rewrite whose addresses' sum
 *	is unchanged (RFC 6296's checksum-neutral mapping) left the L4
 *	checksum as it was; any other updated it as NAT does.
 * Tunnel (KIND IPIP, GRE, VXLAN or GENEVE), per packet, made at LOCAL_IN of the router
 *	that decapsulates it: the inner packet (AFTER_SRC, AFTER_DST, its IP
 *	ID in AFTER_SPORT, AFTER_DPORT 0, PROTO its protocol) arrived inside
 *	an outer one from BEFORE_SRC to BEFORE_DST with IP ID BEFORE_SPORT
 *	and flags and fragment offset BEFORE_DPORT (the outer header has no
 *	options; GRE: version 0, protocol 0x0800 (or 0x86DD, below), no
 *	routing; KIND GRE_CSUM, GRE_KEY, GRE_SEQ for the optional words it
 *	had, RFC 2784 and RFC 2890). FIRST holds the first optional word as the packet carried it
 *	(checksum and reserved, else the key, else the sequence number):
 *	with the 4 bytes before it, the 8 payload bytes a digest covers;
 *	the words after it are not kept (rebuilt as zero). The outer IP ID,
 *	a checksum and a sequence number are per packet: a trace needs them
 *	to find the outer packet the routers inside the tunnel saw.
 *	6in4 (sit, RFC 4213: KIND IPIP, FAMILY 6) likewise for an IPv6
 *	packet in IPv4 (protocol 41), which has no ID: keyed by PROTO (its
 *	next header), AFTER_SRC and AFTER_DST (the XOR of each address's
 *	four 32-bit words) and a tag in AFTER_SPORT and AFTER_DPORT: the
 *	XOR of its first two 32-bit words (traffic class and hop limit
 *	zeroed) and of the two after the fixed header (zero past the
 *	payload), as they lie in the packet; FIRST holds its hop limit
 *	(byte 0) and traffic class (byte 1) inside the tunnel, which a
 *	digest of the outer packet covers and the routers after this one
 *	change. IPv6 in GRE (KIND GRE, FAMILY 6; protocol 0x86DD) alike,
 *	but FIRST holds GRE's first optional word when it has one (then
 *	the digest covers no byte of the inner packet).
 *	Over IPv6 (KIND OUTER6 with IPIP or GRE; ip6tnl, RFC 2473, and
 *	ip6gre): IPv4 or IPv6 (as above) in IPIP or GRE, in an outer
 *	IPv6 packet whose next header is the tunnel's or a destination
 *	options header holding only a tunnel encapsulation limit (RFC 2473
 *	4.1.1, as ip6tnl and ip6gre write it: the limit, then PadN).
 *	BEFORE_SRC and BEFORE_DST hold the outer addresses' folds (as a
 *	key's), and each address itself is an address record of the same
 *	window; BEFORE_SPORT and BEFORE_DPORT, read as one big-endian
 *	32-bit word, the outer flow label (bits 0-19) and, when the
 *	encapsulation limit was there (bit 31), its value (bits 20-27).
 *	FIRST as over IPv4. A digest of the outer packet covers the
 *	destination options header, when there, and not the inner packet.
 *	VXLAN (KIND VXLAN: IPIP and GRE both) likewise, for an IPv4 outer
 *	packet carrying an Ethernet frame of IPv4 or IPv6 (keyed as
 *	6in4's; a digest of the outer packet covers no byte of it): FIRST
 *	holds its UDP source and destination ports as carried (the outer source port is a
 *	hash of the inner flow under the sender's seed: no one else can
 *	compute it); the VXLAN header and the inner Ethernet addresses are
 *	not kept (no digest covers them). With a UDP checksum (KIND
 *	VXLAN_CSUM; it covers the inner frame's Ethernet addresses, which no
 *	capture of the inner packet holds) BEFORE_DPORT holds the checksum
 *	as carried instead of the outer flags, and KIND VXLAN_DF says the
 *	outer header had DF (its other flags and offset are 0).
 *	GENEVE (KIND GENEVE: VXLAN's and GRE_KEY) as VXLAN, for a GENEVE
 *	header of version 0 and protocol Transparent Ethernet Bridging
 *	(0x6558): without options and flags its encapsulation is as long as
 *	VXLAN's, and its header likewise not kept (the VNI matched the
 *	device's). With options, or the O or C flag (KIND GENEVE_OPT), a
 *	more record made with it holds the header's first 16 bits (options'
 *	length, flags); the options are not kept (no digest covers them).
 *	VXLAN and GENEVE over IPv6 (KIND OUTER6 with VXLAN's or GENEVE's
 *	bits): the outer packet an IPv6 one with no extension header;
 *	BEFORE_SRC, BEFORE_DST, BEFORE_SPORT and BEFORE_DPORT as over IPv6
 *	above (the flow label; never an encapsulation limit), FIRST the UDP
 *	ports. KIND VXLAN_CSUM: it had a UDP checksum (mandatory over IPv6,
 *	RFC 8200 8.1, unless the sender was told to send zero, RFC 6935),
 *	held in a more record made with it; VXLAN_DF is never set.
 * More (KIND MORE: OPAQUE and DNAT), per packet, made with, and before, a
 *	tunnel record whose outer packet had more per-packet bytes than the
 *	record holds: keyed as that record, with its BEFORE_SRC, BEFORE_DST
 *	and FIRST (a reader pairs them by those); BEFORE_SPORT and
 *	BEFORE_DPORT the bytes it holds: over IPv6 the UDP checksum of a
 *	VXLAN or GENEVE packet as carried (0 without KIND VXLAN_CSUM, and
 *	over IPv4, where the tunnel record holds it), then GENEVE's first
 *	16 bits as carried (version, options' length in 4-byte words, O and
 *	C flags) with KIND GENEVE_OPT, else 0.
 * Address (KIND ADDR6: OPAQUE and OUTER6), per address and window, made
 *	with the tunnel records over IPv6 whose outer packets had it and the
 *	IPv6 NAT records whose BEFORE or AFTER it is, rewritten (before
 *	them: a table too full
 *	for it takes neither): the 16 bytes of an
 *	IPv6 address in BEFORE_SRC, BEFORE_DST, BEFORE_SPORT and
 *	BEFORE_DPORT, FIRST, in that order. Keyed by FAMILY 6, PROTO 0,
 *	AFTER_SRC its fold, the other AFTER_* fields 0. Two addresses of one
 *	fold have two records: a reader tries both.
 * Arrival (KIND OPAQUE), per flow direction, device or SA and window, made at
 *	POSTROUTING: a packet forwarded here had arrived decapsulated by
 *	something no record undoes (enum kbloom_arrival in BEFORE_DPORT):
 *	IPsec (its input state's SPI in FIRST, and for an IPv4 state its
 *	addresses, the outer packet's, in BEFORE_SRC and BEFORE_DST), or a
 *	tunnel device of a kind kbloom does not undo (its ifindex in FIRST,
 *	host order). Also made at LOCAL_IN for the inner packet of IPIP,
 *	GRE or VXLAN packets merged by GRO (KBLOOM_ARRIVAL_MERGED), keyed
 *	by the inner packet as decapsulated.
 *	Keyed by the packet as it left: FAMILY 4 or 6, PROTO, AFTER_SRC,
 *	AFTER_DST (for IPv6 the XOR of the address's four 32-bit words) and
 *	AFTER_SPORT, AFTER_DPORT as a NAT record's (IPv6: after the fixed
 *	header; ICMPv6 echo's identifier in SPORT; 0 for a later
 *	fragment). A trace there says the packet is not traceable past the
 *	router, naming what it came out of, rather than asking the routers
 *	before it about a form they never carried.
 * A cell whose STATE is not KBLOOM_XLATE_VALID holds no record (0: free;
 * KBLOOM_XLATE_WRITING: being written).
 */
struct kbloom_xlate {
	__u8 state;
	__u8 kind;		/* KBLOOM_XLATE_*: NAT, tunnel, address, arrival */
	__u8 proto;		/* IP protocol */
	__u8 family;		/* 4 */
	__be32 before_src, before_dst;
	__be32 after_src, after_dst;
	__be16 before_sport, before_dport;
	__be16 after_sport, after_dport;
	__u32 first;
};

#define KBLOOM_XLATE_WRITING	1
#define KBLOOM_XLATE_VALID	2
#define KBLOOM_XLATE_SNAT	_BITUL(0)	/* the source was rewritten */
#define KBLOOM_XLATE_DNAT	_BITUL(1)	/* the destination was */
#define KBLOOM_XLATE_IPIP	_BITUL(2)	/* decapsulated from IPIP */
#define KBLOOM_XLATE_GRE	_BITUL(3)	/* decapsulated from GRE */
#define KBLOOM_XLATE_GRE_KEY	_BITUL(4)	/* ... which had a key */
#define KBLOOM_XLATE_GRE_CSUM	_BITUL(5)	/* ... a checksum */
#define KBLOOM_XLATE_GRE_SEQ	_BITUL(6)	/* ... a sequence number */
#define KBLOOM_XLATE_OPAQUE	_BITUL(7)	/* an arrival no record undoes */
/* GRE_KEY's bit in a NAT record: a stateless rewrite (NPTv6), no conntrack. */
#define KBLOOM_XLATE_STATELESS	KBLOOM_XLATE_GRE_KEY
/* IPIP and GRE together: decapsulated from VXLAN (RFC 7348). */
#define KBLOOM_XLATE_VXLAN	(KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE)
/* And GRE_KEY: decapsulated from GENEVE (RFC 8926). */
#define KBLOOM_XLATE_GENEVE	(KBLOOM_XLATE_VXLAN | KBLOOM_XLATE_GRE_KEY)
/* DNAT's bit in a GENEVE record: options or flags, in a more record. */
#define KBLOOM_XLATE_GENEVE_OPT	KBLOOM_XLATE_DNAT
/* GRE's words' bits in a VXLAN or GENEVE record: its UDP checksum, DF. */
#define KBLOOM_XLATE_VXLAN_CSUM	KBLOOM_XLATE_GRE_CSUM
#define KBLOOM_XLATE_VXLAN_DF	KBLOOM_XLATE_GRE_SEQ
/* SNAT's bit in a tunnel record (IPIP or GRE set): its outer packet was IPv6. */
#define KBLOOM_XLATE_OUTER6	KBLOOM_XLATE_SNAT
/* OPAQUE and OUTER6 together: an address record. */
#define KBLOOM_XLATE_ADDR6	(KBLOOM_XLATE_OPAQUE | KBLOOM_XLATE_OUTER6)
/* OPAQUE and DNAT together: the rest of a tunnel record's outer packet. */
#define KBLOOM_XLATE_MORE	(KBLOOM_XLATE_OPAQUE | KBLOOM_XLATE_DNAT)
/* BEFORE_SPORT and BEFORE_DPORT of a tunnel record over IPv6, as one word. */
#define KBLOOM_XLATE_FLOWLABEL	0x000fffff	/* the outer flow label */
#define KBLOOM_XLATE_ENCAPLIM	0x0ff00000	/* the encapsulation limit ... */
#define KBLOOM_XLATE_ENCAPLIM_SHIFT	20
#define KBLOOM_XLATE_HAS_ENCAPLIM	0x80000000	/* ... when there */
#define KBLOOM_XLATE_LINE	2		/* records per 64-byte line */
#define KBLOOM_XLATE_PROBES	8		/* lines a record may use */

/* What an arrival record's packet came out of (BEFORE_DPORT). */
enum kbloom_arrival {
	KBLOOM_ARRIVAL_UNSPEC,
	KBLOOM_ARRIVAL_ESP,		/* IPsec ESP (RFC 4303): ciphertext */
	KBLOOM_ARRIVAL_AH,		/* IPsec AH (RFC 4302) */
	KBLOOM_ARRIVAL_IPCOMP,		/* IP payload compression (RFC 3173) */
	KBLOOM_ARRIVAL_WIREGUARD,	/* a wireguard device: ciphertext */
	KBLOOM_ARRIVAL_VXLAN,		/* vxlan (RFC 7348) */
	KBLOOM_ARRIVAL_GENEVE,		/* geneve (RFC 8926) */
	KBLOOM_ARRIVAL_SIT,		/* sit: no longer made (6in4 records) */
	KBLOOM_ARRIVAL_IP6TNL,		/* ip6tnl: IPv4 or IPv6 in IPv6 (RFC 2473) */
	KBLOOM_ARRIVAL_IP6GRE,		/* ip6gre, ip6gretap: GRE in IPv6 */
	KBLOOM_ARRIVAL_GRETAP,		/* gretap: Ethernet in GRE */
	KBLOOM_ARRIVAL_FOU,		/* ipip or gre in UDP (FOU, GUE) */
	KBLOOM_ARRIVAL_XFRM,		/* an xfrm, vti or vti6 device */
	KBLOOM_ARRIVAL_BAREUDP,		/* bareudp */
	KBLOOM_ARRIVAL_GTP,		/* GTP-U (3GPP TS 29.281) */
	KBLOOM_ARRIVAL_TUN,		/* a tun or tap device: a program wrote it */
	/*
	 * An IPIP, GRE or VXLAN tunnel's packets merged by GRO before this
	 * router decapsulated them: the outer headers of all but the first
	 * are gone (with DF, GRO did not even check their IDs), and the
	 * inner ones may leave rewritten (6.1's GRO cells take the inner
	 * super-packet in again alone and fix its IPv4 IDs to the first's).
	 * FIRST holds the tunnel's KIND bits, BEFORE_SRC and BEFORE_DST the
	 * outer addresses. No tunnel record undoes it.
	 */
	KBLOOM_ARRIVAL_MERGED,
	__KBLOOM_ARRIVAL_MAX
};

#define KBLOOM_ARRIVAL_MAX (__KBLOOM_ARRIVAL_MAX - 1)

/*
 * The key a record is hashed by (KBLOOM_XLATE_KEY_LEN bytes): FAMILY, PROTO,
 * AFTER_SRC, AFTER_DST, AFTER_SPORT, AFTER_DPORT as in the record.
 */
#define KBLOOM_XLATE_KEY_LEN	14

/*
 * Lookups without a system call: /dev/kbloom
 * ------------------------------------------
 * A filter's cells can be mapped read-only into a process, which then
 * tests keys itself, by the probe rules above, with no request per key.
 * The same rule as the family decides who may (CAP_NET_ADMIN in the
 * initial user namespace, or with userns_admin=1 in the one owning the
 * caller's netns), checked for the opener of the file and the caller.
 *
 *	fd = open("/dev/kbloom", O_RDONLY | O_CLOEXEC);
 *	ioctl(fd, KBLOOM_IOC_MAP, &req);	   NAME in the caller's netns
 *	p = mmap(NULL, req.size, PROT_READ, MAP_SHARED, fd, 0);
 *
 * MAP binds the file to the filter NAME (once per file) and adds the
 * digests its packet path still queues, so the mapping holds every packet
 * that passed the hook before MAP; a later packet may be up to 16 a CPU
 * late (the packet path's queues; KBLOOM_IOC_SETTLE adds them). Errors:
 * ENOENT no such filter (or it is being restored), EOPNOTSUPP a type
 * whose memory grows (scalable, dcf) or holds records (transforms),
 * EBUSY the file is bound already, EPERM, ENOMEM (the header below, a
 * page for up to 124 windows, is charged to the filter's namespace and the
 * caller's memcg, not to its MEMORY: STATUS's MEM_NETNS and MEM_ALL).
 * mmap must map all of req.size from offset 0, without PROT_WRITE or
 * PROT_EXEC (EPERM; mprotect cannot add them later, EACCES);
 * ENOENT when the filter bound was destroyed meanwhile (even if another
 * of its name exists now).
 *
 * The mapping: a header (struct kbloom_map_header) at offset 0; the cells
 * of table t (the transfer stream's bytes, as EXPORT gives them) at
 * cells_off + t * table_stride, cell_bytes long. A filter without windows
 * has one table; a time-paged filter W + 1, of which window[] names the
 * retained ones, newest first, and the others are no window.
 *
 * seq is odd while the kernel changes what a lookup reads: the set of
 * windows (a rotation) or every cell (CLEAR). A lookup reads seq (even),
 * then the header's windows and the cells, then seq again; if it changed,
 * the lookup is retried. Adds need no retry: a bit once set stays set
 * until a CLEAR or, for a window, until it leaves window[].
 *
 * When the filter is destroyed (DESTROY, its netns going away), flags gets
 * KBLOOM_MAP_F_DESTROYED (seq bumped around it). The mapping stays
 * readable, frozen as it was, until it is unmapped; the memory is freed
 * then.
 *
 * Lookups through the mapping are not counted in STATS unless the reader
 * reports them with KBLOOM_IOC_COUNT (positives at most queries, EINVAL;
 * the counters saturate at U64_MAX, never wrap).
 */
#define KBLOOM_DEV_NAME		"kbloom"	/* /dev/kbloom */
#define KBLOOM_MAP_MAGIC	0x6b626d31	/* "kbm1" */
#define KBLOOM_MAP_VERSION	2	/* 2: hash_fn (readers of 1 refuse 2) */

struct kbloom_map_req {
	char name[KBLOOM_NAME_MAX];	/* in: NUL-terminated */
	__u64 size;			/* out: bytes to map */
};

/* A retained window: which table holds it, and when it was open. */
struct kbloom_map_window {
	__u32 table;
	__u32 pad;
	__u64 id;		/* WINDOW_ID: 1 for the first, +1 per rotation */
	__u64 start_ns;		/* CLOCK_REALTIME */
	__u64 end_ns;		/* 0 while open */
};

struct kbloom_map_header {
	__u32 magic;		/* KBLOOM_MAP_MAGIC */
	__u32 version;		/* KBLOOM_MAP_VERSION */
	__u32 seq;		/* odd while changing: see above */
	__u32 flags;		/* KBLOOM_MAP_F_* */
	/* The shape, as CREATE's attributes of the same names. */
	__u32 type;
	__u32 hashes;
	__u64 bits;
	__u32 counter_bits;	/* 1 for bit types */
	__u32 update;
	__u32 decrement;
	__u32 subtables;
	__u32 bucket_cells;
	__u32 fp_bits;
	__u32 dims;
	__u32 ntables;
	__u8 hash_key[KBLOOM_HASH_KEY_LEN];
	__u64 cell_bytes;	/* bytes of one table's cells */
	__u64 cells_off;	/* where table 0 begins (a page multiple) */
	__u64 table_stride;	/* from one table to the next (pages) */
	__u64 interval_ms;	/* 0: not time-paged */
	__u32 nwindows;		/* entries of window[] in use */
	__u32 windows_max;	/* W (1 when not time-paged): window[]'s size */
	__u32 hash_fn;		/* enum kbloom_hash_fn, as HASH_FN */
	__u32 reserved;		/* 0 */
	struct kbloom_map_window window[];
};

#define KBLOOM_MAP_F_DESTROYED	_BITUL(0)

/* Lookups a reader made, for the filter's STATS (positives <= queries). */
struct kbloom_map_count {
	__u64 queries;
	__u64 positives;
};

#define KBLOOM_IOC_MAGIC	0xB8
#define KBLOOM_IOC_MAP		_IOWR(KBLOOM_IOC_MAGIC, 1, struct kbloom_map_req)
#define KBLOOM_IOC_SETTLE	_IO(KBLOOM_IOC_MAGIC, 2)
#define KBLOOM_IOC_COUNT	_IOW(KBLOOM_IOC_MAGIC, 3, struct kbloom_map_count)

#endif /* _UAPI_LINUX_KBLOOM_H */
