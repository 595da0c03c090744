// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * 'bloomctl trace' backend for remote routers: one OpenSSH invocation per
 * question, whatever the number of packets and windows,
 *
 *   ssh [-F CONFIG] [-p PORT] [-i IDENTITY] -o BatchMode=yes
 *       -o ConnectTimeout=T -o ControlMaster=auto
 *       -o ControlPath=DIR/%C -o ControlPersist=60 -- [USER@]HOST
 *       "'BLOOMCTL' -j [-n 'NETNS'] show 'FILTER' &&
 *        'BLOOMCTL' -j [-n 'NETNS'] query 'FILTER' pcap - since @0"
 *
 * over one connection per router for the whole trace: the first question
 * makes the master connection (OpenSSH multiplexing), the later ones run
 * as sessions over it; DIR is the trace's private (0700) directory, and
 * trace_ssh_close() ends the master ('ssh -O exit') before it is removed.
 * A question that has not finished within the timeout is killed (its
 * process group: the master too, when it was still connecting).
 *
 * with the packets written to its stdin as a capture of link type raw IP
 * (libpcap: pcap_open_dead + pcap_dump), each stamped with the time the
 * victim saw it. 'show' gives the filter's type and shape (for the rates),
 * 'query' which windows hold each packet, both as JSON on stdout
 * (cmd_query.c's -j format: "windows" [{id, start_ns, end_ns, packets, fill}]
 * and "packets" [{index, windows: [ID...]} or {index, skip}]), read by
 * trace_json.c. The remote query uses the filter's own digest mode.
 * The ssh program is $KBLOOM_SSH when set (one word), else "ssh".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive_read.h"
#include "describe.h"
#include "pcapdl.h"
#include "savefile.h"
#include "trace_backend.h"
#include "trace_json.h"
#include "types.h"
#include "util.h"

#define OUT_MAX		(256u << 20)	/* bytes of remote output kept */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > OUT_MAX)
			return -1;
		np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

static int buf_str(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

/* A word for the remote shell: in single quotes. */
static int buf_quoted(struct buf *b, const char *s)
{
	int r = buf_str(b, "'");

	for (; *s && !r; s++)
		r = *s == '\'' ? buf_str(b, "'\\''") : buf_add(b, s, 1);
	return r ? r : buf_str(b, "'");
}

/* The packets as a raw-IP capture, in memory. */
static int make_pcap(const struct tb_item *items, size_t n, char **out,
		     size_t *len, char *err, size_t errlen)
{
	const struct kb_pcap_api *pc;
	pcap_dumper_t *dump;
	pcap_t *p;
	FILE *f;
	size_t i;

	*out = NULL;
	*len = 0;
	pc = kb_pcap_api(err, errlen);
	if (!pc)
		return -1;
	f = open_memstream(out, len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p = pc->open_dead(DLT_RAW, 65535);
	if (!p) {
		fclose(f);
		free(*out);
		snprintf(err, errlen, "pcap_open_dead failed");
		return -1;
	}
	dump = pc->dump_fopen(p, f);
	if (!dump) {
		snprintf(err, errlen, "unable to write a capture: %s",
			 pc->geterr(p));
		fclose(f);
		free(*out);
		pc->close(p);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = items[i].ts / 1000000000ULL;
		h.ts.tv_usec = items[i].ts % 1000000000ULL / 1000;
		h.caplen = items[i].len;
		h.len = items[i].len;
		pc->dump((u_char *)dump, &h, items[i].pkt);
	}
	pc->dump_close(dump);	/* closes f: *out and *len are final */
	pc->close(p);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Runs @argv with @in on its stdin; collects stdout and stderr. Returns
 * the wait status, -1 with @err set, or -2 when it ran longer than
 * @timeout_ms (0: no limit) and was killed.
 */
static int run(char *const argv[], const char *in, size_t inlen,
	       struct buf *out, struct buf *errout, uint64_t timeout_ms,
	       char *err, size_t errlen)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	uint64_t deadline = timeout_ms ? mono_ms() + timeout_ms : 0;
	struct pollfd pfd[3];
	size_t off = 0;
	int status, open_in, open_out, open_err, killed = 0;
	pid_t pid;
	char tmp[65536];

	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) ||
	    pipe2(perr, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail_pipes;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto fail_pipes;
	}
	if (!pid) {
		/* its own process group: killed whole at the timeout */
		setpgid(0, 0);
		if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 ||
		    dup2(perr[1], 2) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "unable to run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	fcntl(pin[1], F_SETFL, O_NONBLOCK);
	open_in = 1;
	open_out = open_err = 1;
	if (!inlen) {
		close(pin[1]);
		open_in = 0;
	}
	while (open_in || open_out || open_err) {
		int nfd = 0, i_in = -1, i_out = -1, i_err = -1, wait_ms = -1;

		if (deadline) {
			uint64_t now = mono_ms();

			if (now >= deadline) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				killed = 1;
				break;
			}
			wait_ms = deadline - now > 60000 ? 60000 :
				  (int)(deadline - now);
		}
		if (open_in) {
			pfd[nfd] = (struct pollfd){ pin[1], POLLOUT, 0 };
			i_in = nfd++;
		}
		if (open_out) {
			pfd[nfd] = (struct pollfd){ pout[0], POLLIN, 0 };
			i_out = nfd++;
		}
		if (open_err) {
			pfd[nfd] = (struct pollfd){ perr[0], POLLIN, 0 };
			i_err = nfd++;
		}
		if (poll(pfd, nfd, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (i_in >= 0 && pfd[i_in].revents) {
			ssize_t w = write(pin[1], in + off, inlen - off);

			if (w > 0)
				off += w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) ||
			    off == inlen) {
				/* EPIPE: it stopped reading; its status says why */
				close(pin[1]);
				open_in = 0;
			}
		}
		if (i_out >= 0 && pfd[i_out].revents) {
			ssize_t r = read(pout[0], tmp, sizeof(tmp));

			if (r > 0 && buf_add(out, tmp, r))
				r = -1;	/* too much: stop reading */
			if (r <= 0 && !(r < 0 && errno == EINTR)) {
				close(pout[0]);
				open_out = 0;
			}
		}
		if (i_err >= 0 && pfd[i_err].revents) {
			ssize_t r = read(perr[0], tmp, sizeof(tmp));

			if (r > 0 && errout->len < 65536)
				buf_add(errout, tmp, r);
			if (r <= 0 && !(r < 0 && errno == EINTR)) {
				close(perr[0]);
				open_err = 0;
			}
		}
	}
	if (open_in)
		close(pin[1]);
	if (open_out)
		close(pout[0]);
	if (open_err)
		close(perr[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
	}
	return killed ? -2 : status;
fail_pipes:
	for (int i = 0; i < 2; i++) {
		if (pin[i] >= 0)
			close(pin[i]);
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	return -1;
}

/* The last non-empty line of @b (stderr), for a message. */
static const char *last_line(struct buf *b)
{
	char *s, *e;

	if (!b->p)
		return "";
	e = b->p + b->len;
	while (e > b->p && (e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	s = e;
	while (s > b->p && s[-1] != '\n')
		s--;
	return s;
}

static int u64_of(const struct tj *o, const char *key, uint64_t *v)
{
	const struct tj *x = tj_get(o, key);

	if (!x || x->type == TJ_NULL) {
		*v = 0;
		return 0;
	}
	return tj_u64(x, v);
}

/* show -j: the filter's type and shape. */
static int read_shape(const struct tj *o, struct kb_shape *p)
{
	const char *type = tj_str(o, "type");
	uint64_t v;
	int t;

	memset(p, 0, sizeof(*p));
	if (!type || (t = kb_type_parse(type)) < 0)
		return -1;
	p->type = t;
	if (u64_of(o, "bits", &p->m) || !p->m)
		return -1;
	if (u64_of(o, "hashes", &v) || !v || v > KBLOOM_HASHES_MAX)
		return -1;
	p->k = v;
#define FIELD(key, f)					\
	do {						\
		if (u64_of(o, key, &v) || v > UINT32_MAX)	\
			return -1;			\
		p->f = v;				\
	} while (0)
	FIELD("counter_bits", cell_bits);
	FIELD("decrement", decrement);
	FIELD("subtables", subtables);
	FIELD("bucket_cells", bucket_cells);
	FIELD("fp_bits", fp_bits);
#undef FIELD
	return 0;
}

static int read_answer(const struct tj *show, const struct tj *query,
		       size_t n, struct tb_answer *a, const char **why)
{
	const struct tj *wins = tj_get(query, "windows");
	const struct tj *pks = tj_get(query, "packets");
	const struct tj *by;
	struct kb_shape p;
	size_t i, j, h;

	if (read_shape(show, &p)) {
		*why = "no filter type and shape in the output of show";
		return -1;
	}
	if (kb_utype_tuples(p.type)) {
		*why = "the filter is a multi filter: trace needs single-key digests (spie)";
		return -1;
	}
	if (!wins || wins->type != TJ_ARR || !pks || pks->type != TJ_ARR ||
	    wins->n > KBLOOM_WINDOWS_MAX) {
		*why = "no windows and packets in the output of query";
		return -1;
	}
	if (trace_answer_alloc(a, wins->n, n)) {
		*why = "out of memory";
		return -1;
	}
	/* show -j's "attach": {"bypass": [NAME, ...]} (none: no attach) */
	by = tj_get(tj_get(show, "attach"), "bypass");
	for (j = 0; by && by->type == TJ_ARR && j < by->n; j++)
		if (by->v[j].type == TJ_STR)
			trace_bypass_join(a, by->v[j].s);
	for (j = 0; j < wins->n; j++) {
		const struct tj *w = &wins->v[j];
		struct tb_window *tw = &a->win[j];

		if (tj_u64(tj_get(w, "id"), &tw->id) ||
		    u64_of(w, "start_ns", &tw->start) ||
		    u64_of(w, "end_ns", &tw->end) ||
		    u64_of(w, "packets", &tw->packets) ||
		    u64_of(w, "fill", &tw->fill)) {
			*why = "a malformed window in the output of query";
			return -1;
		}
		tw->fpr = trace_window_fpr(&p, tw->fill);
	}
	for (i = 0; i < pks->n; i++) {
		const struct tj *pk = &pks->v[i], *ids;
		uint64_t index;

		if (tj_u64(tj_get(pk, "index"), &index) || !index ||
		    index > n) {
			*why = "a packet index out of range in the output of query";
			return -1;
		}
		ids = tj_get(pk, "windows");
		if (!ids)
			continue;	/* skipped: no digest */
		if (ids->type != TJ_ARR) {
			*why = "a malformed packet in the output of query";
			return -1;
		}
		for (h = 0; h < ids->n; h++) {
			uint64_t id;

			if (tj_u64(&ids->v[h], &id)) {
				*why = "a malformed window ID in the output of query";
				return -1;
			}
			for (j = 0; j < a->nwin; j++)
				if (a->win[j].id == id)
					break;
			if (j == a->nwin) {
				*why = "a packet in a window the output of query does not list";
				return -1;
			}
			a->hits[(index - 1) * a->row + j / 8] |= 1 << (j % 8);
		}
	}
	return 0;
}

/* "'BLOOMCTL'[ -j][ -n 'NETNS'] VERB 'NAME'" appended to @cmd. */
static int remote_bloomctl(const struct kb_topo_router *r, bool json,
			   const char *verb, const char *name, struct buf *cmd)
{
	int ret = buf_quoted(cmd, r->bloomctl);

	if (json)
		ret |= buf_str(cmd, " -j");
	if (r->netns) {
		ret |= buf_str(cmd, " -n ");
		ret |= buf_quoted(cmd, r->netns);
	}
	ret |= buf_str(cmd, verb);
	return ret | buf_quoted(cmd, name);
}

static int remote_command(const struct kb_topo_router *r, struct buf *cmd)
{
	int i, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		if (i)
			ret |= buf_str(cmd, " && ");
		ret |= remote_bloomctl(r, true, i ? " query " : " show ",
				       r->filter, cmd);
		/* Every window: the trace picks those of [at - slack, at]. */
		if (i)
			ret |= buf_str(cmd, " pcap - since @0");
	}
	return ret;
}

static const char *ssh_program(void)
{
	const char *ssh = getenv("KBLOOM_SSH");

	return ssh && *ssh ? ssh : "ssh";
}

/*
 * The options before the destination: -F, -p, -i of the router, then
 * BatchMode, ConnectTimeout and the multiplexing ones (@ctl_dir NULL: no
 * multiplexing). @opts holds the strings; returns argc.
 */
struct ssh_opts {
	char port[16], connect[48], path[4200];
};

static int ssh_argv(const struct kb_topo_router *r, const char *ctl_dir,
		    uint64_t timeout_ms, struct ssh_opts *o, char **argv)
{
	int argc = 0;

	argv[argc++] = (char *)ssh_program();
	if (r->config) {
		argv[argc++] = "-F";
		argv[argc++] = r->config;
	}
	if (r->port) {
		snprintf(o->port, sizeof(o->port), "%u", r->port);
		argv[argc++] = "-p";
		argv[argc++] = o->port;
	}
	if (r->identity) {
		argv[argc++] = "-i";
		argv[argc++] = r->identity;
	}
	argv[argc++] = "-o";
	argv[argc++] = "BatchMode=yes";
	/* whole seconds, at most 10, at least 1 */
	snprintf(o->connect, sizeof(o->connect), "ConnectTimeout=%llu",
		 (unsigned long long)(!timeout_ms || timeout_ms >= 10000 ? 10 :
				      timeout_ms < 1000 ? 1 :
				      timeout_ms / 1000));
	argv[argc++] = "-o";
	argv[argc++] = o->connect;
	if (ctl_dir) {
		snprintf(o->path, sizeof(o->path), "ControlPath=%s/%%C",
			 ctl_dir);
		argv[argc++] = "-o";
		argv[argc++] = "ControlMaster=auto";
		argv[argc++] = "-o";
		argv[argc++] = o->path;
		argv[argc++] = "-o";
		argv[argc++] = "ControlPersist=60";
	}
	return argc;
}

/* Ends router @r's master connection in @ctl_dir, if there is one. */
static void ssh_close_master(const struct kb_topo_router *r,
			     const char *ctl_dir)
{
	struct buf out = { 0 }, errout = { 0 };
	struct ssh_opts o;
	char *argv[32], jerr[160];
	int argc = ssh_argv(r, ctl_dir, 0, &o, argv);

	argv[argc++] = "-O";
	argv[argc++] = "exit";
	argv[argc++] = "--";
	argv[argc++] = r->host;
	argv[argc] = NULL;
	/* no master (never made, or killed): ssh says so, nothing to do */
	run(argv, NULL, 0, &out, &errout, 10000, jerr, sizeof(jerr));
	free(out.p);
	free(errout.p);
}

/*
 * Runs remote command @cmd on router @r (over the master in @ctl_dir),
 * @in on its stdin, its stdout into @out. 0 when it exited 0 or 1, else
 * -1 with one line in @err naming the router and what failed.
 */
static int ssh_call(const struct kb_topo_router *r, const char *ctl_dir,
		    uint64_t timeout_ms, const char *cmd, const char *in,
		    size_t inlen, struct buf *out, char *err, size_t errlen)
{
	struct buf errout = { 0 };
	struct ssh_opts o;
	char jerr[160];
	char *argv[32];
	int argc, st, ret = -1;

	argc = ssh_argv(r, ctl_dir, timeout_ms, &o, argv);
	argv[argc++] = "--";
	argv[argc++] = r->host;
	argv[argc++] = (char *)cmd;
	argv[argc] = NULL;

	st = run(argv, in, inlen, out, &errout, timeout_ms, jerr,
		 sizeof(jerr));
	if (st == -2) {
		snprintf(err, errlen, "router %s (ssh %s): no answer within the timeout (%llu ms): killed",
			 r->name, r->host, (unsigned long long)timeout_ms);
	} else if (st == -1) {
		snprintf(err, errlen, "router %s (ssh %s): %s", r->name,
			 r->host, jerr);
	} else if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0 &&
				      WEXITSTATUS(st) != 1)) {
		const char *line = last_line(&errout);

		if (WIFEXITED(st))
			snprintf(err, errlen, "router %s (ssh %s): %s exited with status %d%s%s",
				 r->name, r->host,
				 WEXITSTATUS(st) == 255 ? "ssh" : "the remote bloomctl",
				 WEXITSTATUS(st), *line ? ": " : "", line);
		else
			snprintf(err, errlen, "router %s (ssh %s): ssh killed by signal %d",
				 r->name, r->host, WTERMSIG(st));
	} else {
		ret = 0;
	}
	free(errout.p);
	return ret;
}

static int ssh_ask(const struct kb_topo_router *r, const char *ctl_dir,
		   uint64_t timeout_ms, const struct tb_item *items, size_t n,
		   struct tb_answer *a, char *err, size_t errlen)
{
	struct buf cmd = { 0 }, out = { 0 };
	struct tj *show = NULL, *query = NULL;
	const char *why = NULL;
	char jerr[160];
	char *pcap = NULL;
	size_t pcaplen, pos = 0;
	int ret = -1;

	if (make_pcap(items, n, &pcap, &pcaplen, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "router %s (ssh %s): %s", r->name,
			 r->host, jerr);
		return -1;
	}
	if (remote_command(r, &cmd)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (ssh_call(r, ctl_dir, timeout_ms, cmd.p, pcap, pcaplen, &out, err,
		     errlen))
		goto out;
	show = tj_parse(out.p ? out.p : "", out.len, &pos, jerr, sizeof(jerr));
	if (show)
		query = tj_parse(out.p, out.len, &pos, jerr, sizeof(jerr));
	if (!show || !query) {
		snprintf(err, errlen, "router %s (ssh %s): unreadable output of the remote bloomctl: %s",
			 r->name, r->host, jerr[0] ? jerr : "it printed nothing");
		goto out;
	}
	if (read_answer(show, query, n, a, &why)) {
		snprintf(err, errlen, "router %s (ssh %s): %s", r->name,
			 r->host, why);
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		free(a->win);
		free(a->hits);
		memset(a, 0, sizeof(*a));
	}
	tj_free(show);
	tj_free(query);
	free(pcap);
	free(cmd.p);
	free(out.p);
	return ret;
}

static uint64_t le_at(const char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | (uint8_t)p[n];
	return v;
}

/*
 * The save files of @b, one after another (save's format, version 1:
 * a transforms table's), each written to @dir as NAME.<window>.kbf, its
 * path added to @paths (freed by the caller). 0, or -1 and @why.
 */
static int split_saves(const struct buf *b, const char *dir,
		       const char *name, char ***paths, size_t *npaths,
		       const char **why)
{
	size_t off = 0, len;
	char **np, *path;
	FILE *f;

	while (off < b->len) {
		const char *p = b->p + off;

		if (b->len - off < KB_SAVE_HEADER_LEN ||
		    memcmp(p, KB_SAVE_MAGIC, 8)) {
			*why = "output of save that is not a whole save file";
			return -1;
		}
		if (le_at(p + 8, 4) != KB_SAVE_VERSION || le_at(p + 12, 4)) {
			*why = "a save file of another version or compressed: not a transforms table's";
			return -1;
		}
		len = le_at(p + KB_SAVE_HEADER_LEN - 8, 8);
		if (len > b->len - off - KB_SAVE_HEADER_LEN ||
		    KB_SAVE_TRAILER_LEN > b->len - off - KB_SAVE_HEADER_LEN - len) {
			*why = "a save file cut short in the output of save";
			return -1;
		}
		len += KB_SAVE_HEADER_LEN + KB_SAVE_TRAILER_LEN;
		np = realloc(*paths, (*npaths + 1) * sizeof(*np));
		if (!np) {
			*why = "out of memory";
			return -1;
		}
		*paths = np;
		if (asprintf(&path, "%s/%s.%010llu.kbf", dir, name,
			     (unsigned long long)le_at(p + 176, 8)) < 0) {
			*why = "out of memory";
			return -1;
		}
		np[(*npaths)++] = path;
		f = fopen(path, "wx");
		if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
			if (f)
				fclose(f);
			*why = "unable to write a window to the private directory";
			return -1;
		}
		off += len;
	}
	return 0;
}

/*
 * Router @r's transforms table over ssh: 'show -j' for its windows, then
 * each window's 'save TABLE -' in one call, loaded as an archive.
 */
static int ssh_xlate(const struct kb_topo_router *r, const char *ctl_dir,
		     uint64_t timeout_ms, struct kb_archive **xout, char *err,
		     size_t errlen)
{
	struct buf cmd = { 0 }, out = { 0 };
	char jerr[160] = "", awhy[1024], *dir = NULL, **paths = NULL;
	const char *why = NULL, *type;
	size_t pos = 0, i, n, npaths = 0;
	const struct tj *wl = NULL;
	struct tj *show = NULL;
	uint64_t id;
	int ret = -1;

	*xout = NULL;
	if (remote_bloomctl(r, true, " show ", r->transforms, &cmd)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (ssh_call(r, ctl_dir, timeout_ms, cmd.p, NULL, 0, &out, err,
		     errlen))
		goto out;
	show = tj_parse(out.p ? out.p : "", out.len, &pos, jerr, sizeof(jerr));
	type = tj_str(show, "type");
	if (!show || !type) {
		snprintf(err, errlen, "router %s (ssh %s): unreadable output of the remote bloomctl: %s",
			 r->name, r->host, jerr[0] ? jerr : "it printed nothing");
		goto out;
	}
	if (strcmp(type, "transforms")) {
		snprintf(err, errlen, "router %s (ssh %s): '%s' is a %s filter, not a transforms table",
			 r->name, r->host, r->transforms, type);
		goto out;
	}
	/*
	 * Every retained window (none: its one table), saved to stdout one
	 * after another; one that a rotation drops meanwhile is left out
	 * ('|| true': its save fails alone), as kb_xlate_load() does.
	 */
	wl = tj_get(show, "window_list");
	n = wl && wl->type == TJ_ARR ? wl->n : 0;
	free(cmd.p);
	free(out.p);
	memset(&cmd, 0, sizeof(cmd));
	memset(&out, 0, sizeof(out));
	for (i = 0; i < (n ? n : 1); i++) {
		int bad = i ? buf_str(&cmd, " ; ") : 0;
		char w[40] = "";

		if (n && tj_u64(tj_get(&wl->v[i], "id"), &id)) {
			snprintf(err, errlen, "router %s (ssh %s): a malformed window in the output of show",
				 r->name, r->host);
			goto out;
		}
		if (n)
			snprintf(w, sizeof(w), " window %llu",
				 (unsigned long long)id);
		bad |= remote_bloomctl(r, false, " save ", r->transforms, &cmd);
		bad |= buf_str(&cmd, " -");
		bad |= buf_str(&cmd, w);
		if (bad | buf_str(&cmd, " || true")) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (ssh_call(r, ctl_dir, timeout_ms, cmd.p, NULL, 0, &out, err,
		     errlen))
		goto out;
	dir = private_dir("bloomctl-xlate", 0, "", err, errlen);
	if (!dir)
		goto out;
	if (split_saves(&out, dir, r->transforms, &paths, &npaths, &why)) {
		snprintf(err, errlen, "router %s (ssh %s): transforms table '%s': %s",
			 r->name, r->host, r->transforms, why);
		goto out;
	}
	if (kb_archive_open(dir, r->transforms, xout, awhy, sizeof(awhy))) {
		snprintf(err, errlen, "router %s (ssh %s): transforms table '%s': %s",
			 r->name, r->host, r->transforms, awhy);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < npaths; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	if (dir)
		rmdir(dir);
	free(dir);
	tj_free(show);
	free(cmd.p);
	free(out.p);
	return ret;
}

static int ssh_backend_ask(struct trace_backends *b, size_t r,
			   const struct tb_item *items, size_t n,
			   struct tb_answer *a, char *err, size_t errlen)
{
	b->ssh_calls[r]++;
	return ssh_ask(&b->t->r[r], b->ctl_dir, b->timeout_ms, items, n, a,
		       err, errlen);
}

static int ssh_backend_xlate(struct trace_backends *b, size_t r,
			     struct kb_archive **out, char *err, size_t errlen)
{
	b->ssh_calls[r] += 2;	/* show, then the saves */
	return ssh_xlate(&b->t->r[r], b->ctl_dir, b->timeout_ms, out, err,
			 errlen);
}

static void ssh_backend_close(struct trace_backends *b, size_t r)
{
	if (b->ctl_dir && b->ssh_calls[r])
		ssh_close_master(&b->t->r[r], b->ctl_dir);
}

const struct trace_backend_ops trace_ssh_ops = {
	.ask = ssh_backend_ask,
	.xlate = ssh_backend_xlate,
	.close = ssh_backend_close,
};
