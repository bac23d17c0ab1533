/* backend_emu.c — the emulator backend: a fabric of namespaces (netctl),
 * one emu-agent per server moving real bytes, the OCS controller on its own
 * thread on the agents' reported demand, wall clock.  The controller talks
 * to the agents over a Unix socket (emu/proto.h) from one epoll loop; on
 * hosts other than the first of --hosts, over TCP with the run's secret
 * (emu/ctl_auth.h), started there by one emu-agent --spawn per host. */
#include "emu/agent_batch.h"
#include "emu/agent_spawn.h"
#include "emu/captures.h"
#include "emu/ctl_auth.h"
#include "emu/run_int.h"
#include "emu/tcpstat.h"
#include "netctl/hostctl.h"
#include "netctl/hostfab.h"
#include "netctl/lan.h"
#include "netctl/launch.h"
#include "netctl/ns.h"
#include "netctl/plan.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_PORT   7000
#define TICK_S      0.02
#define HELLO_WAIT  20.0
#define AUTH_WAIT   5.0      /* a TCP connection's secret, from its accept */

struct agent {
	int fd;                  /* control connection, -1 until hello */
	pid_t pid;               /* ours: on the first host; 0 on the others (their starter's) */
	pid_t seen;              /* on this machine: /proc/PID/net/netstat is its server's; else 0 */
	bool up;                 /* said hello and still connected */
	uint64_t *pending;       /* circuit-eligible bytes to send, per destination rack */
	uint64_t *queued;        /* circuit transfers its reduces hold back, per source rack */
	struct tcpstat tcp0;     /* its namespace's TCP counters once it said hello */
};

/* Connections before their hello are not yet tied to a server; TCP ones
 * before their secret are not yet authenticated. */
struct conn {
	int fd, server;
	char *buf;
	size_t len;
	bool authed;
	double since;            /* accepted (epoch s) */
	char peer[INET_ADDRSTRLEN + 8];   /* TCP: A.B.C.D:PORT */
};

/* A last-stage task whose output the policy keeps on another server
 * (sched_output_server, as the simulator): its agent computes without
 * writing, then the output server's agent fetches the output from its
 * memory onto its own disk (a copy, agents/copy.c), and the task is done
 * once it is written.  A kill or suspend meanwhile drops that write (its
 * copy_done is stale: the id carries the attempt); a resume writes it again. */
#define OUTPUT_COPY   (1 << 30)   /* copy ids of outputs: OUTPUT_COPY + task * OUTPUT_GENS + attempt */
#define OUTPUT_GENS   64
#define OUTPUT_TASKS  ((INT32_MAX - OUTPUT_COPY) / OUTPUT_GENS)   /* more tasks: written locally */
struct out_write {
	int dst;                 /* where the output goes, -1: its own disk */
	unsigned gen;            /* attempts at writing it */
	bool writing;            /* computed; its copy is under way */
	uint64_t bytes_in;       /* the agent's task_done, reported when written */
};

struct emu_be {
	struct fabric *fab;
	bool fabric_made;
	double t0;               /* epoch seconds at start, 0 before */
	int epfd, listen_fd, timer_fd;
	char sock_path[256];
	int tcp_fd;              /* --hosts: agents on other hosts connect here, -1 otherwise */
	char tcp_spec[40];       /* tcp:A.B.C.D:PORT */
	char secret[CTL_SECRET_HEX + 1];
	struct layout lay;       /* --hosts: which host carries each rack */
	struct starter {         /* --hosts: each other host's emu-agent --spawn */
		pid_t pid;
		int in_fd;       /* its standard input: closed, it ends and its agents with it */
	} starter[HOSTS_MAX];
	struct agent *agents;    /* per server */
	struct out_write *out;   /* per task, once a task starts */
	int agents_up;
	struct conn *conns;
	int nconns;
	pthread_mutex_t send_mu; /* writes to agents: main loop and OCS thread */
	char sendbuf[PROTO_MAX_LINE];   /* guarded by send_mu */
	pthread_mutex_t demand_mu;
	int controller_nice;     /* the main thread's nice value once the agents run */
	struct tcpstat tcp;      /* the servers' TCP timer events over the run (emu_stop) */
	struct run_captures *caps;   /* --capture, from the fabric's start to the run's end */
	pthread_t ocs_thread;
	bool ocs_thread_on;
	volatile int ocs_stop;
	char ocs_err[FABRIC_ERR_LEN];
};

static struct emu_be *E(const struct run *r) { return r->be_priv; }

/* Slow motion (run_params.slowdown = k): the fabric runs every link at 1/k
 * of its rate and the agents and the OCS thread take k times as long for
 * everything, so the machine does 1/k of the work per second.  The run's
 * clock stays in its own seconds (results, scheduler, heartbeat): wall time
 * is converted here, at the agents' and the OCS thread's edges. */
static double wall_of(const struct run *r, double run_s) { return run_s * r->p.slowdown; }
static double run_time_of(const struct run *r, double epoch) { return (epoch - E(r)->t0) / r->p.slowdown; }

static double emu_now(const struct run *r)
{
	return E(r)->t0 > 0 ? run_time_of(r, run_wall()) : 0;
}

/* ---- agents ------------------------------------------------------------- */

static int send_msg(struct run *r, int server, const struct msg *m)
{
	struct emu_be *e = E(r);
	int rc = -1;
	pthread_mutex_lock(&e->send_mu);
	struct agent *a = &e->agents[server];
	int n = a->up ? proto_encode(m, e->sendbuf, sizeof e->sendbuf) : -1;
	for (int off = 0; n > 0 && off < n;) {
		ssize_t w = write(a->fd, e->sendbuf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (int)w;
		rc = off == n ? 0 : -1;
	}
	pthread_mutex_unlock(&e->send_mu);
	return rc;
}

static void broadcast_pairs(struct run *r, enum msg_op op, const struct circuit_cfg *cfg)
{
	struct rack_pair pairs[TOPO_MAX_RACKS * TOPO_MAX_PORTS];
	int n = 0;
	for (int p = 0; p < cfg->ports; p++)
		for (int s = 0; s < cfg->racks; s++)
			if (cfg->out[p][s] >= 0)
				pairs[n++] = (struct rack_pair){s, cfg->out[p][s]};
	struct msg m = {.op = op, .pairs = pairs, .npairs = n};
	for (int i = 0; i < r->c.nservers; i++)
		send_msg(r, i, &m);
}

static void on_announce(void *arg, const struct circuit_cfg *going) { broadcast_pairs(arg, OP_ANNOUNCE, going); }
static void on_lit(void *arg, const struct circuit_cfg *lit) { broadcast_pairs(arg, OP_CIRCUITS, lit); }

static struct sockaddr_in data_addr(const struct run *r, int server)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(DATA_PORT)};
	a.sin_addr = plan_server_ip(r->t, cluster_rack_of(&r->c, server), r->c.servers[server].index);
	return a;
}

/* Host `host`'s agents: one emu-agent --spawn started there by netctl's
 * launcher (inside PREFIX-m-NAME, or over ssh), the run's secret and the
 * agents' arguments on its standard input, which stays open for the run. */
static int start_host_agents(struct run *r, int host, const char *path, struct agent_batch *b, char err[512])
{
	struct emu_be *e = E(r);
	const struct fabric_host *h = &r->p.hosts->h[host];
	const char *text = agent_batch_end(b);
	const char *args[] = {"--spawn", "--prefix", r->p.prefix, "--host", h->name, NULL};
	char lerr[LAUNCH_ERR_LEN];
	if (!text) {
		snprintf(err, 512, "host %s: cannot list its agents (an empty argument, or out of memory)", h->name);
		return -1;
	}
	e->starter[host].pid = launch_start(path, "emu-agent", r->p.prefix, h, args, text, &e->starter[host].in_fd, NULL, lerr);
	if (e->starter[host].pid < 0) {
		snprintf(err, 512, "%s", lerr);
		return -1;
	}
	return 0;
}

/* Gently: they had the shutdown; give them a second to end, then end
 * their input, then kill. */
static void stop_starters(struct run *r, bool gently)
{
	struct emu_be *e = E(r);
	for (int k = 1; r->p.hosts && k < r->p.hosts->n; k++) {
		struct starter *s = &e->starter[k];
		for (int i = 0; s->pid > 0 && i < (gently ? 200 : 100); i++) {
			if (waitpid(s->pid, NULL, WNOHANG) != 0) {
				s->pid = 0;
				break;
			}
			if (s->in_fd >= 0 && (!gently || i == 100)) {
				close(s->in_fd);
				s->in_fd = -1;
			}
			nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
		}
		if (s->pid > 0) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			s->pid = 0;
		}
		if (s->in_fd >= 0)
			close(s->in_fd);
		s->in_fd = -1;
	}
}

static int spawn_agents(struct run *r, char err[512])
{
	struct emu_be *e = E(r);
	char path[512], server[16], rack[16], addr[32], port[16], copiers[16], stall_t[32], stall_r[16];
	char disk_r[32], disk_w[32];
	if (r->p.agent_path)
		snprintf(path, sizeof path, "%s", r->p.agent_path);
	else if (agent_default_path(path, sizeof path)) {
		snprintf(err, 512, "cannot find emu-agent beside the emu binary");
		return -1;
	}
	if (access(path, X_OK)) {
		snprintf(err, 512, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(port, sizeof port, "%d", DATA_PORT);
	snprintf(copiers, sizeof copiers, "%d", r->p.copiers);
	snprintf(stall_t, sizeof stall_t, "%g", wall_of(r, r->p.stall_timeout_s));
	snprintf(stall_r, sizeof stall_r, "%d", r->p.stall_retries);
	struct agent_batch batch[HOSTS_MAX];
	int hosts = r->p.hosts ? r->p.hosts->n : 0, rc = 0;
	for (int k = 1; k < hosts; k++)
		agent_batch_begin(&batch[k], e->secret);
	for (int i = 0; i < r->c.nservers && !rc; i++) {
		struct host_id h = {HOST_SERVER, cluster_rack_of(&r->c, i), r->c.servers[i].index};
		struct sockaddr_in ip = data_addr(r, i);
		plan_host_name(&h, server, sizeof server);
		snprintf(rack, sizeof rack, "%d", h.rack);
		inet_ntop(AF_INET, &ip.sin_addr, addr, sizeof addr);
		/* The disk's rates in wall time (emu/disk.h). */
		const struct topo_class *k = &r->t->cls[r->c.servers[i].cls];
		snprintf(disk_r, sizeof disk_r, "%g", k->disk_read_mbps / r->p.slowdown);
		snprintf(disk_w, sizeof disk_w, "%g", k->disk_write_mbps / r->p.slowdown);
		/* A server on another host than the first: its agent starts in that
		 * host's namespace, connects over the LAN and joins the server's. */
		bool remote = r->p.hosts && e->lay.host_of[h.rack] != 0;
		char nsname[64];
		plan_ns_name(r->p.prefix, &h, nsname, sizeof nsname);
		char *argv[] = {path, "--server", server, "--rack", rack, "--addr", addr, "--data-port", port,
				"--control", remote ? e->tcp_spec : e->sock_path, r->p.hold ? "--hold" : "--fallback",
				"--cc", (char *)r->t->tcp_cc, "--copiers", copiers, "--stall-timeout", stall_t,
				"--stall-retries", stall_r, "--disk-read-mbps", disk_r, "--disk-write-mbps", disk_w,
				remote ? "--netns" : NULL, nsname, NULL};
		if (remote) {
			agent_batch_add(&batch[e->lay.host_of[h.rack]], argv + 1);   /* a failure shows at the end */
			continue;
		}
		e->agents[i].pid = e->agents[i].seen = agent_spawn(path, fabric_ns_fd(e->fab, &h), argv);
		if (e->agents[i].pid < 0) {
			snprintf(err, 512, "cannot start the agent of %s: %s", server, strerror(errno));
			rc = -1;
		}
	}
	for (int k = 1; k < hosts; k++) {
		if (!rc && batch[k].agents)
			rc = start_host_agents(r, k, path, &batch[k], err);
		agent_batch_free(&batch[k]);
	}
	return rc;
}

static struct conn *conn_of(struct emu_be *e, int fd)
{
	for (int i = 0; i < e->nconns; i++)
		if (e->conns[i].fd == fd)
			return &e->conns[i];
	return NULL;
}

static void conn_drop(struct emu_be *e, struct conn *c)
{
	epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&e->send_mu);
	if (c->server >= 0) {
		e->agents[c->server].up = false;
		e->agents[c->server].fd = -1;
	}
	close(c->fd);
	pthread_mutex_unlock(&e->send_mu);
	free(c->buf);
	*c = e->conns[--e->nconns];
}

static void accept_agent(struct emu_be *e, int lfd)
{
	bool tcp = lfd == e->tcp_fd;
	struct sockaddr_in peer;
	socklen_t plen = sizeof peer;
	int fd = accept4(lfd, tcp ? (struct sockaddr *)&peer : NULL, tcp ? &plen : NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct ucred cred;
	socklen_t len = sizeof cred;
	/* Only root (our own agents) may talk to the controller over the Unix
	 * socket; over TCP, only who first presents the run's secret. */
	if (!tcp && (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0)) {
		close(fd);
		return;
	}
	struct timeval tv = {2, 0};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	struct conn *nc = realloc(e->conns, (e->nconns + 1) * sizeof *e->conns);
	if (!nc) {
		close(fd);
		return;
	}
	e->conns = nc;
	struct conn *c = &e->conns[e->nconns++];
	*c = (struct conn){fd, -1, malloc(PROTO_MAX_LINE), 0, !tcp, run_wall(), ""};
	if (tcp) {
		char ip[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
		snprintf(c->peer, sizeof c->peer, "%s:%u", ip, (unsigned)ntohs(peer.sin_port));
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
	epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Said whatever --quiet: a refusal is a security event. */
static void refuse(struct emu_be *e, struct conn *c, const char *why)
{
	fprintf(stderr, "emu: refused a control connection from %s: %s\n", c->peer, why);
	conn_drop(e, c);
}

static void expire_unauthed(struct emu_be *e)
{
	double now = run_wall();
	for (int i = 0; i < e->nconns;)
		if (!e->conns[i].authed && now - e->conns[i].since > AUTH_WAIT)
			refuse(e, &e->conns[i], "no secret within the wait");   /* the last takes slot i */
		else
			i++;
}

static void set_rack_bytes(uint64_t *v, int racks, const struct rack_bytes *rb, int n)
{
	memset(v, 0, racks * sizeof *v);
	for (int i = 0; i < n; i++)
		if (rb[i].rack >= 0 && rb[i].rack < racks)
			v[rb[i].rack] = rb[i].bytes;
}

static void demand(struct run *r, int server, const struct msg *m)
{
	struct emu_be *e = E(r);
	pthread_mutex_lock(&e->demand_mu);
	set_rack_bytes(e->agents[server].pending, r->c.racks, m->pending, m->npending);
	set_rack_bytes(e->agents[server].queued, r->c.racks, m->queued, m->nqueued);
	pthread_mutex_unlock(&e->demand_mu);
}

static void agent_lost(struct run *r, int server)
{
	struct emu_be *e = E(r);
	if (e->t0 <= 0 || !r->c.servers[server].alive)
		return;
	e->agents_up--;
	pthread_mutex_lock(&e->demand_mu);
	memset(e->agents[server].pending, 0, r->c.racks * sizeof(uint64_t));
	memset(e->agents[server].queued, 0, r->c.racks * sizeof(uint64_t));
	pthread_mutex_unlock(&e->demand_mu);
	run_server_lost(r, server);
}

/* Lost agents are reaped as soon as they are gone, not at teardown: a killed
 * agent left a zombie would still show in /proc, and `emu cleanup` waits for
 * the processes it killed to leave it. */
static void reap_lost(struct run *r)
{
	struct emu_be *e = E(r);
	for (int i = 0; e->agents && i < r->c.nservers; i++)
		if (e->agents[i].pid > 0 && !r->c.servers[i].alive && waitpid(e->agents[i].pid, NULL, WNOHANG) > 0)
			e->agents[i].pid = -1;
	/* A host's starter ends once its agents all have (it said why). */
	for (int k = 1; r->p.hosts && k < r->p.hosts->n; k++)
		if (e->starter[k].pid > 0 && waitpid(e->starter[k].pid, NULL, WNOHANG) > 0)
			e->starter[k].pid = 0;
}

/* A copy's bytes are on its destination's disk.  One that failed (its
 * source gone) is said and counted done: what it held is lost either way,
 * and the policy waits on it. */
static void output_copy(struct run *r, int task);

/* A task's agent is done: with a remote output, the output is written
 * first. */
static void task_done(struct run *r, int server, const struct msg *m)
{
	bool known = m->task >= 0 && m->task < r->w->ntasks;
	struct out_write *o = E(r)->out && known ? &E(r)->out[m->task] : NULL;
	if (m->ok && o && o->dst >= 0 && r->w->tasks[m->task].state == TASK_RUNNING &&
	    r->w->tasks[m->task].server == server) {
		o->bytes_in = m->bytes;
		output_copy(r, m->task);
		return;
	}
	run_task_done(r, server, m->task, m->ok, m->bytes, m->error);
}

/* A remote output's copy ended: the task is done (failed: it runs again). */
static void output_done(struct run *r, const struct msg *m)
{
	int k = m->copy - OUTPUT_COPY, task = k / OUTPUT_GENS;
	struct out_write *o = E(r)->out;
	if (!o || task >= r->w->ntasks || !o[task].writing || (unsigned)(k % OUTPUT_GENS) != o[task].gen % OUTPUT_GENS)
		return;   /* stale: killed, suspended or run again meanwhile */
	o[task].writing = false;
	char err[160];
	snprintf(err, sizeof err, "output to server %d: %s", o[task].dst, m->error);
	run_task_done(r, r->w->tasks[task].server, task, m->ok, o[task].bytes_in, m->ok ? NULL : err);
}

static void copy_done(struct run *r, int server, const struct msg *m)
{
	if (m->copy >= OUTPUT_COPY) {
		output_done(r, m);
		return;
	}
	if (!m->ok)
		run_say(r, "copy %d onto server %d failed: %s", m->copy, server, m->error);
	run_copy_done(r, m->copy);
}

static void handle_line(struct run *r, struct conn *c, char *line, size_t len)
{
	struct emu_be *e = E(r);
	struct msg m;
	char err[128];
	if (proto_decode(line, len, &m, err)) {
		run_say(r, "ignoring a malformed message from %s: %s", c->server >= 0 ? "an agent" : "a connection", err);
		return;
	}
	if (m.op == OP_HELLO && c->server < 0) {
		struct host_id h;
		if (plan_host_parse(m.server, r->t, &h) || h.kind != HOST_SERVER) {
			run_say(r, "hello from unknown server '%s'", m.server);
		} else {
			int s = r->c.rack_first[h.rack] + h.server;
			if (!e->agents[s].up) {
				int host = r->p.hosts ? e->lay.host_of[h.rack] : 0;
				if (host && r->p.hosts->h[host].emulated)
					e->agents[s].seen = m.pid;   /* another host, but this machine */
				c->server = s;
				pthread_mutex_lock(&e->send_mu);
				e->agents[s].fd = c->fd;
				e->agents[s].up = true;
				pthread_mutex_unlock(&e->send_mu);
				e->agents_up++;
			}
		}
	} else if (c->server >= 0) {
		switch (m.op) {
		case OP_TASK_DONE: task_done(r, c->server, &m); break;
		case OP_FLOW_DONE:
			xfer_moving(r, m.xfer, run_time_of(r, m.t_start));
			run_flow_done(r, m.xfer, m.bytes, run_time_of(r, m.t_end));
			break;
		case OP_DEMAND: demand(r, c->server, &m); break;
		case OP_COPY_DONE: copy_done(r, c->server, &m); break;
		default: run_say(r, "unexpected message op %d from server %d", m.op, c->server);
		}
	}
	proto_free(&m);
}

static void read_conn(struct run *r, int fd)
{
	struct emu_be *e = E(r);
	struct conn *c = conn_of(e, fd);
	if (!c)
		return;
	ssize_t n = read(fd, c->buf + c->len, PROTO_MAX_LINE - c->len);
	if (n <= 0 && !c->authed) {
		refuse(e, c, "no secret before it closed");
		return;
	}
	if (n <= 0) {
		int server = c->server;
		conn_drop(e, c);
		if (server >= 0)
			agent_lost(r, server);
		return;
	}
	c->len += (size_t)n;
	char *start = c->buf, *nl;
	while ((nl = memchr(start, '\n', c->buf + c->len - start))) {
		const char *why;
		if (!c->authed && ctl_auth_check(start, (size_t)(nl - start), e->secret, &why)) {
			refuse(e, c, why);
			return;
		}
		if (!c->authed)
			c->authed = true;
		else
			handle_line(r, c, start, (size_t)(nl - start));
		c = conn_of(e, fd);   /* handling may not drop it, but stay safe */
		if (!c)
			return;
		start = nl + 1;
	}
	size_t rest = c->buf + c->len - start;
	const char *why;
	if (!c->authed && rest >= CTL_AUTH_LINE_LEN) {   /* longer than a handshake */
		refuse(e, c, ctl_auth_check(start, rest, e->secret, &why) ? why : "a malformed secret");
		return;
	}
	if (rest == PROTO_MAX_LINE) {   /* a line longer than allowed: protocol violation */
		run_say(r, "dropping a connection that sent an oversized line");
		int server = c->server;
		conn_drop(e, c);
		if (server >= 0)
			agent_lost(r, server);
		return;
	}
	memmove(c->buf, start, rest);
	c->len = rest;
}

/* One pass of the event loop: the 20 ms timer bounds the wait, so the
 * deadline needs no timer of its own. */
static void emu_poll(struct run *r, double deadline)
{
	(void)deadline;
	struct emu_be *e = E(r);
	struct epoll_event ev[64];
	int n = epoll_wait(e->epfd, ev, 64, 1000);
	r->c.now = emu_now(r);
	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd;
		if (fd == e->timer_fd) {
			uint64_t x;
			if (read(fd, &x, sizeof x) < 0) { /* nothing to do */ }
		} else if (fd == e->listen_fd || fd == e->tcp_fd) {
			accept_agent(e, fd);
		} else {
			read_conn(r, fd);
		}
	}
	expire_unauthed(e);
	reap_lost(r);
}

/* ---- tasks -------------------------------------------------------------- */

/* Start writing task's output onto its output server's disk. */
static void output_copy(struct run *r, int task)
{
	struct out_write *o = &E(r)->out[task];
	const struct task *t = &r->w->tasks[task];
	o->gen++;
	o->writing = true;
	struct msg m = {.op = OP_COPY, .copy = OUTPUT_COPY + task * OUTPUT_GENS + (int)(o->gen % OUTPUT_GENS),
			.src = t->server, .src_addr = data_addr(r, t->server), .bytes = t->output_bytes,
			.from_disk = false};
	if (send_msg(r, o->dst, &m)) {   /* its server is gone: the task runs again */
		o->writing = false;
		run_task_done(r, t->server, task, false, o->bytes_in, "output server gone");
	}
}

/* Where task t's output is written: -1 = its own disk (a task others
 * read, or one the policy keeps where it ran). */
static int output_dst(struct run *r, struct task *t, int server)
{
	if (!t->output_bytes || t->id >= OUTPUT_TASKS || r->w->jobs[t->job].stages[t->stage].has_children)
		return -1;
	int dst = sched_output_server(&r->s, t);
	return dst >= 0 && dst != server ? dst : -1;
}

static void emu_start_task(struct run *r, struct task *t, int server, int input_src)
{
	struct emu_be *e = E(r);
	if (!e->out)
		e->out = calloc((size_t)r->w->ntasks + 1, sizeof *e->out);
	int dst = e->out ? output_dst(r, t, server) : -1;
	if (e->out) {
		e->out[t->id].dst = dst;
		e->out[t->id].writing = false;
		e->out[t->id].gen &= ~(1u << 31);   /* an earlier attempt's write left to a resume */
	}
	struct msg m = {.task = t->id, .job = t->job, .duration = wall_of(r, t->duration_s),
			.output_bytes = dst >= 0 ? 0 : t->output_bytes};
	if (t->kind == TASK_MAP) {
		m.op = OP_MAP;
		m.input_src = input_src;
		m.input_bytes = t->input_bytes;
		if (input_src >= 0)
			m.input_addr = data_addr(r, input_src);
	} else {
		m.op = OP_REDUCE;
		m.copiers = r->p.copiers;
	}
	send_msg(r, server, &m);
}

static void emu_fetch(struct run *r, struct task *reduce, const struct xfer *xs, int n, bool final)
{
	struct xfer *copy = malloc((n ? n : 1) * sizeof *copy);
	if (!copy)
		return;
	for (int i = 0; i < n; i++) {
		copy[i] = xs[i];
		copy[i].addr = data_addr(r, xs[i].src);
	}
	struct msg m = {.op = OP_FETCH, .task = reduce->id, .job = reduce->job, .xfers = copy, .nxfers = n,
			.final = final};
	send_msg(r, reduce->server, &m);
	free(copy);
}

/* The agent stops the task (kill: its "killed" answer is not a failure,
 * run_task_done ignores it) or suspends it, and later resumes it. */
static void emu_preempt(struct run *r, struct task *t, enum preempt_op op)
{
	struct out_write *o = E(r)->out ? &E(r)->out[t->id] : NULL;
	if (o && o->writing) {   /* its agent is done with it: drop the write; a resume writes again */
		o->writing = false;
		o->gen++;
		if (op == PREEMPT_SUSPEND)
			o->gen |= 1u << 31;   /* marks "computed, to write on resume" */
		return;
	}
	struct msg m = {.op = op == PREEMPT_KILL ? OP_KILL : OP_SUSPEND, .task = t->id};
	send_msg(r, t->server, &m);
}

static void emu_resume(struct run *r, struct task *t, double delay)
{
	struct out_write *o = E(r)->out ? &E(r)->out[t->id] : NULL;
	if (o && (o->gen & (1u << 31))) {   /* suspended while writing its output */
		o->gen &= ~(1u << 31);
		output_copy(r, t->id);
		return;
	}
	struct msg m = {.op = OP_RESUME, .task = t->id, .duration = wall_of(r, delay)};
	send_msg(r, t->server, &m);
}

/* A copy (cluster_copy): dst's agent fetches the bytes off src's disk and
 * writes them to its own (agents/copy.c) and says copy_done. */
static void emu_copy(struct run *r, int id, int src, int dst, uint64_t bytes)
{
	struct msg m = {.op = OP_COPY, .copy = id, .src = src, .src_addr = data_addr(r, src), .bytes = bytes,
			.from_disk = true};
	if (!bytes || send_msg(r, dst, &m))
		run_copy_done(r, id);
}

/* ---- the OCS thread ----------------------------------------------------- */

/* How often the controller looks at the demand between intervals when
 * configurations may give way early (ocs_early_due): δ-sized steps. */
#define OCS_EARLY_POLL_S 0.010

static void *ocs_main(void *arg)
{
	struct run *r = arg;
	struct emu_be *e = E(r);
	ocs_realtime();   /* best effort: δ stays precise on a busy machine */
	const struct ocs_params *p = &r->ocs.p;   /* in wall seconds (emu_setup) */
	double t_lit = ocs_mono(), next = t_lit + p->interval_s;
	while (!e->ocs_stop) {
		double wake = p->early ? fmin(next, ocs_mono() + wall_of(r, OCS_EARLY_POLL_S)) : next;
		ocs_sleep_until(wake);
		if (e->ocs_stop)
			break;
		pthread_mutex_lock(&e->demand_mu);
		for (int s = 0; s < r->c.racks; s++)
			for (int d = 0; d < r->c.racks; d++) {
				/* what senders in s have started for d, and what
				 * reduces in d hold back from s */
				uint64_t sum = 0;
				int first, n;
				cluster_rack_servers(&r->c, s, &first, &n);
				for (int k = first; k < first + n; k++)
					sum += e->agents[k].pending[d];
				cluster_rack_servers(&r->c, d, &first, &n);
				for (int k = first; k < first + n; k++)
					sum += e->agents[k].queued[s];
				ocs_demand_set(&r->ocs, s, d, (int64_t)(sum > INT64_MAX / 4 ? INT64_MAX / 4 : sum));
			}
		pthread_mutex_unlock(&e->demand_mu);
		double t = ocs_mono();
		bool periodic = t >= next - 1e-6;
		if (!periodic && !ocs_early_due(&r->ocs, t - t_lit))
			continue;
		struct ocs_event ev;
		if (ocs_tick(&r->ocs, &ev, e->ocs_err))
			break;
		if (ev.changed) {
			t_lit = ocs_mono();
			fidelity_reconfig(&r->fid, ev.dark_s, p->delta_s);
		}
		/* On the interval's grid, or a new period from an early reconfiguration. */
		next = periodic ? next + p->interval_s : ocs_mono() + p->interval_s;
	}
	return NULL;
}

static const char *emu_failure(struct run *r)
{
	struct emu_be *e = E(r);
	if (!e->agents_up)
		return "every agent was lost";
	if (r->ocs_on && e->ocs_err[0]) {
		run_say(r, "OCS controller: %s", e->ocs_err);
		return "the OCS controller failed";
	}
	return NULL;
}

/* ---- setup, teardown ---------------------------------------------------- */

static int open_control(struct run *r, char err[512])
{
	struct emu_be *e = E(r);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(e->sock_path, sizeof e->sock_path, "%s/%s/ctl.sock", FABRIC_STATE_DIR, r->p.prefix);
	if (strlen(e->sock_path) >= sizeof a.sun_path) {
		snprintf(err, 512, "control socket path too long");
		return -1;
	}
	strcpy(a.sun_path, e->sock_path);
	unlink(e->sock_path);
	e->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* The state directory is root-only (0700); the socket is born 0600
	 * (umask around bind, so there is no moment it is more open). */
	mode_t old = umask(077);
	int bound = e->listen_fd >= 0 ? bind(e->listen_fd, (struct sockaddr *)&a, sizeof a) : -1;
	umask(old);
	if (bound || chmod(e->sock_path, 0600) || listen(e->listen_fd, 1024)) {
		snprintf(err, 512, "control socket %s: %s", e->sock_path, strerror(errno));
		return -1;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = e->listen_fd};
	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->listen_fd, &ev);
}

/* The socket, made inside the first emulated host's namespace (ns: its name). */
static int tcp_socket_in(struct run *r, char *ns, size_t len, char err[512])
{
	struct emu_be *e = E(r);
	lan_machine_ns(r->p.prefix, r->p.hosts->h[0].name, ns, len);
	int self = ns_self(), there = ns_open(ns);
	if (self < 0 || there < 0 || ns_enter(there)) {
		snprintf(err, 512, "cannot enter %s: %s", ns, strerror(errno));
		if (self >= 0)
			close(self);
		if (there >= 0)
			close(there);
		return -1;
	}
	e->tcp_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int saved = errno, back = ns_enter(self);
	close(self);
	close(there);
	if (back) {
		snprintf(err, 512, "cannot return from %s: %s", ns, strerror(errno));
		return -1;
	}
	errno = saved;
	return 0;
}

/* Agents on the other hosts connect to the first host's underlay address.
 * Emulated, the socket is made inside that host's namespace (a socket keeps
 * the namespace it was made in), so every TCP byte stays between project
 * namespaces; real, the controller runs on the first host and the address
 * is its own. */
static int open_tcp(struct run *r, char err[512])
{
	struct emu_be *e = E(r);
	const struct fabric_host *h = &r->p.hosts->h[0];
	char ns[64] = "-", ip[INET_ADDRSTRLEN];
	if (ctl_secret_new(e->secret)) {
		snprintf(err, 512, "cannot make the run's secret: %s", strerror(errno));
		return -1;
	}
	if (!h->emulated)
		e->tcp_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	else if (tcp_socket_in(r, ns, sizeof ns, err))
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr = h->addr};
	socklen_t al = sizeof a;
	if (e->tcp_fd < 0 || bind(e->tcp_fd, (struct sockaddr *)&a, sizeof a) || listen(e->tcp_fd, 1024) ||
	    getsockname(e->tcp_fd, (struct sockaddr *)&a, &al)) {
		snprintf(err, 512, "control TCP socket in %s: %s", h->emulated ? ns : "this machine's namespace",
			 strerror(errno));
		return -1;
	}
	inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
	snprintf(e->tcp_spec, sizeof e->tcp_spec, "tcp:%s:%u", ip, (unsigned)ntohs(a.sin_port));
	/* Where, for `emu` tools and tests (the secret never is in a file). */
	char path[300];
	snprintf(path, sizeof path, "%s/%s/ctl.tcp", FABRIC_STATE_DIR, r->p.prefix);
	mode_t old = umask(077);
	FILE *f = fopen(path, "w");
	umask(old);
	if (f) {
		fprintf(f, "%s %s\n", ns, e->tcp_spec + 4);
		fclose(f);
	}
	run_say(r, "agents on the other hosts connect to %s in %s", e->tcp_spec + 4,
		h->emulated ? ns : "this machine's namespace");
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = e->tcp_fd};
	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->tcp_fd, &ev);
}

/* An agent that exited before its hello (killed by `emu cleanup`, or it
 * could not start) ends the wait at once, reaped, rather than after
 * HELLO_WAIT with a zombie that `emu cleanup` waits for. */
static bool agent_died_unheard(struct run *r, char err[512])
{
	struct emu_be *e = E(r);
	for (int i = 0; i < r->c.nservers; i++) {
		int st;
		if (e->agents[i].pid <= 0 || e->agents[i].up || waitpid(e->agents[i].pid, &st, WNOHANG) <= 0)
			continue;
		e->agents[i].pid = -1;
		char server[32];
		struct host_id h = {HOST_SERVER, cluster_rack_of(&r->c, i), r->c.servers[i].index};
		plan_host_name(&h, server, sizeof server);
		if (WIFSIGNALED(st))
			snprintf(err, 512, "the agent of %s was killed (signal %d) before it said hello", server,
				 WTERMSIG(st));
		else
			snprintf(err, 512, "the agent of %s exited with status %d before it said hello", server,
				 WEXITSTATUS(st));
		return true;
	}
	for (int k = 1; r->p.hosts && k < r->p.hosts->n; k++) {
		int st;
		if (e->starter[k].pid <= 0 || waitpid(e->starter[k].pid, &st, WNOHANG) <= 0)
			continue;
		e->starter[k].pid = 0;
		snprintf(err, 512, "host %s: its agents' starter (emu-agent --spawn) %s %d before its agents all said hello "
			 "(its messages are above)", r->p.hosts->h[k].name,
			 WIFSIGNALED(st) ? "was killed by signal" : "exited with status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return true;
	}
	return false;
}

static int wait_for_agents(struct run *r, char err[512])
{
	struct emu_be *e = E(r);
	double until = run_wall() + HELLO_WAIT;
	while (e->agents_up < r->c.nservers && run_wall() < until && !run_stop_requested) {
		struct epoll_event ev[64];
		int n = epoll_wait(e->epfd, ev, 64, 100);
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == e->listen_fd || ev[i].data.fd == e->tcp_fd)
				accept_agent(e, ev[i].data.fd);
			else
				read_conn(r, ev[i].data.fd);
		expire_unauthed(e);
		if (agent_died_unheard(r, err))
			return -1;
	}
	if (e->agents_up < r->c.nservers) {
		snprintf(err, 512, "only %d of %d agents started within %.0f s", e->agents_up, r->c.nservers, HELLO_WAIT);
		return -1;
	}
	return 0;
}

/* The controller stands in for the cluster's resource manager and its
 * application masters, which have machines of their own; here every task's
 * launch and report passes through this one thread.  It needs a tenth of a
 * CPU, but behind 100 busy agents it waited for one for seconds at a time,
 * and the reports it had not read made node-local maps end 5-8% past their
 * compute (1.5-2% once ahead of them).  The nice value is this thread's
 * alone (Linux), set once the agents are forked so they keep theirs; the
 * OCS thread runs SCHED_FIFO anyway.  Best effort: the summary's
 * emu.controller_nice says what held. */
#define CONTROLLER_NICE (-10)

static void controller_ahead_of_agents(struct emu_be *e)
{
	setpriority(PRIO_PROCESS, 0, CONTROLLER_NICE);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	e->controller_nice = errno ? 0 : nice;
}

/* A server's TCP counters: its agent's /proc/PID/net/netstat is the
 * server's namespace.  0, or -1 once the agent is gone (killed, or its rack
 * failed: it left its control connection). */
static int server_tcpstat(const struct agent *a, struct tcpstat *st)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/net/netstat", (int)a->seen);
	*st = (struct tcpstat){0};
	return a->seen > 0 && a->up ? tcpstat_add(path, st) : -1;
}

/* The servers' TCP timer events since their agents said hello, summed over
 * the agents still there. */
static struct tcpstat servers_tcp_since_hello(const struct run *r)
{
	struct tcpstat sum = {0}, now;
	for (int i = 0; i < r->c.nservers; i++)
		if (!server_tcpstat(&E(r)->agents[i], &now))
			tcpstat_add_since(&sum, &now, &E(r)->agents[i].tcp0);
	return sum;
}

static json_t *emu_summary(struct run *r)
{
	const struct tcpstat *t = &E(r)->tcp;
	json_t *o = json_pack("{s:i, s:{s:I, s:I, s:I}}", "controller_nice", E(r)->controller_nice, "tcp",
			      "syn_retransmits", (json_int_t)t->syn_retrans, "timeouts", (json_int_t)t->timeouts,
			      "delayed_acks", (json_int_t)t->delayed_acks);
	if (o && E(r)->caps)
		json_object_set_new(o, "captures", captures_json(E(r)->caps));
	return o;
}

static int emu_setup(struct run *r, char err[512])
{
	char ferr[FABRIC_ERR_LEN];
	struct emu_be *e = calloc(1, sizeof *e);
	if (!e) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	r->be_priv = e;
	e->epfd = e->listen_fd = e->timer_fd = e->tcp_fd = -1;
	for (int k = 0; k < HOSTS_MAX; k++)
		e->starter[k].in_fd = -1;
	pthread_mutex_init(&e->send_mu, NULL);
	pthread_mutex_init(&e->demand_mu, NULL);
	if (!(e->agents = calloc(r->c.nservers, sizeof *e->agents)))
		goto oom;
	for (int i = 0; i < r->c.nservers; i++) {
		e->agents[i].fd = -1;
		if (!(e->agents[i].pending = calloc(r->t->racks, sizeof(uint64_t))) ||
		    !(e->agents[i].queued = calloc(r->t->racks, sizeof(uint64_t))))
			goto oom;
	}
	run_say(r, "building the fabric (%d racks, %d servers)", r->t->racks, topo_servers(r->t));
	struct topo slowed = *r->t;
	topo_slow_down(&slowed, r->p.slowdown);
	char netctl[PATH_MAX];
	if (r->p.hosts && launch_netctl_path(netctl, sizeof netctl)) {
		snprintf(err, 512, "cannot find netctl beside emu (needed for --hosts)");
		return -1;
	}
	char herr[HOSTS_ERR_LEN];
	if (r->p.hosts && hosts_partition(r->p.hosts, &slowed, &e->lay, herr)) {
		snprintf(err, 512, "%s", herr);
		return -1;
	}
	if (r->p.hosts ? fabric_up_hosts(&slowed, r->p.hosts, r->p.prefix, netctl, NULL, ferr)
		       : fabric_up(&slowed, r->p.prefix, NULL, ferr)) {
		snprintf(err, 512, "%s", ferr);
		return -1;
	}
	e->fabric_made = true;
	/* Tell `emu cleanup` where this run's temporary files are, in case the
	 * controller is killed before it can rename or remove them. */
	char marker[300];
	snprintf(marker, sizeof marker, "%s/%s/results", FABRIC_STATE_DIR, r->p.prefix);
	FILE *mf = fopen(marker, "w");
	if (mf) {
		fprintf(mf, "%s\n", r->dir);
		fclose(mf);
	}
	/* The racks of the other hosts: through a netctl host-ctl on each. */
	if (!(e->fab = fabric_open(r->p.prefix, ferr)) || (r->p.hosts && fabric_attach_hosts(e->fab, netctl, ferr))) {
		snprintf(err, 512, "%s", ferr);
		return -1;
	}
	/* Before the agents: the capture thread keeps the default nice value
	 * (controller_ahead_of_agents raises the main thread's only). */
	if (r->p.ncaptures) {
		if (!(e->caps = captures_start(e->fab, &r->p, r->dir, err)))
			return -1;
		run_say(r, "capturing %d interface%s into %s/capture-*.pcap", r->p.ncaptures,
			r->p.ncaptures == 1 ? "" : "s", r->dir);
	}
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0 || open_control(r, err) || (r->p.hosts && r->p.hosts->n > 1 && open_tcp(r, err)))
		return -1;
	run_say(r, "starting %d agents", r->c.nservers);
	if (spawn_agents(r, err) || wait_for_agents(r, err))
		return -1;
	controller_ahead_of_agents(e);
	for (int i = 0; i < r->c.nservers; i++)
		server_tcpstat(&e->agents[i], &e->agents[i].tcp0);
	if (r->t->ocs) {
		struct fabric *of = fabric_open(r->p.prefix, ferr);   /* its own sockets and hosts' channels, for its own thread */
		if (of && r->p.hosts && fabric_attach_hosts(of, netctl, ferr)) {
			fabric_close(of);
			of = NULL;
		}
		char path[600];
		snprintf(path, sizeof path, "%s/ocs.csv.tmp", r->dir);
		struct ocs_hooks hooks = {on_announce, on_lit, r};
		struct ocs_params wall = r->p.ocs;
		ocs_params_slow_down(&wall, r->p.slowdown);
		if (!of || ocs_ctl_init(&r->ocs, of, &wall, &hooks, path, ferr)) {
			snprintf(err, 512, "OCS controller: %s", ferr);
			fabric_close(of);
			return -1;
		}
		r->ocs_on = true;
	}
	e->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {{0, (long)(TICK_S * 1e9)}, {0, (long)(TICK_S * 1e9)}};
	struct epoll_event tev = {.events = EPOLLIN, .data.fd = e->timer_fd};
	if (e->timer_fd < 0 || timerfd_settime(e->timer_fd, 0, &its, NULL) ||
	    epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->timer_fd, &tev)) {
		snprintf(err, 512, "timer: %s", strerror(errno));
		return -1;
	}
	e->t0 = run_wall();
	if (r->ocs_on) {
		if (pthread_create(&e->ocs_thread, NULL, ocs_main, r)) {
			snprintf(err, 512, "OCS thread: %s", strerror(errno));
			return -1;
		}
		e->ocs_thread_on = true;
	}
	return 0;
oom:
	snprintf(err, 512, "out of memory");
	return -1;
}

static void emu_stop(struct run *r)
{
	struct emu_be *e = E(r);
	if (e->ocs_thread_on) {
		e->ocs_stop = 1;
		pthread_join(e->ocs_thread, NULL);
		e->ocs_thread_on = false;
	}
	e->tcp = servers_tcp_since_hello(r);   /* while the agents, and so their namespaces' files, are there */
	struct msg m = {.op = OP_SHUTDOWN};
	for (int i = 0; i < r->c.nservers; i++)
		send_msg(r, i, &m);
	for (int i = 0; i < r->c.nservers; i++) {
		pid_t pid = e->agents[i].pid;
		if (pid <= 0)
			continue;
		for (int k = 0; k < 100 && waitpid(pid, NULL, WNOHANG) == 0; k++) {
			struct timespec ts = {0, 10 * 1000000L};
			nanosleep(&ts, NULL);
		}
		if (waitpid(pid, NULL, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		e->agents[i].pid = 0;
	}
	stop_starters(r, true);
	captures_stop(e->caps, true);   /* after the agents: their last packets are in */
}

static void emu_teardown(struct run *r)
{
	struct emu_be *e = E(r);
	if (!e)
		return;
	if (e->ocs_thread_on) {
		e->ocs_stop = 1;
		pthread_join(e->ocs_thread, NULL);
	}
	captures_free(e->caps);   /* a run that never got going keeps no capture */
	if (r->ocs_on) {
		struct fabric *of = r->ocs.fab;
		ocs_ctl_free(&r->ocs);
		fabric_close(of);
	}
	for (int i = 0; e->agents && i < r->c.nservers; i++)
		if (e->agents[i].pid > 0 && waitpid(e->agents[i].pid, NULL, WNOHANG) == 0) {
			kill(e->agents[i].pid, SIGKILL);
			waitpid(e->agents[i].pid, NULL, 0);
		}
	stop_starters(r, false);
	while (e->nconns)
		conn_drop(e, &e->conns[0]);
	free(e->conns);
	if (e->listen_fd >= 0) {
		close(e->listen_fd);
		unlink(e->sock_path);
	}
	if (e->tcp_fd >= 0)
		close(e->tcp_fd);
	explicit_bzero(e->secret, sizeof e->secret);
	if (e->timer_fd >= 0)
		close(e->timer_fd);
	if (e->epfd >= 0)
		close(e->epfd);
	fabric_close(e->fab);
	char netctl[PATH_MAX];
	if (e->fabric_made && !r->p.keep_fabric) {
		if (r->p.hosts && !launch_netctl_path(netctl, sizeof netctl))
			fabric_down_hosts(r->p.hosts, r->p.prefix, netctl, NULL);
		else
			fabric_down(r->p.prefix, NULL);   /* on emulated hosts, this removes them too */
	}
	for (int i = 0; e->agents && i < r->c.nservers; i++) {
		free(e->agents[i].pending);
		free(e->agents[i].queued);
	}
	free(e->agents);
	free(e->out);
	pthread_mutex_destroy(&e->send_mu);
	pthread_mutex_destroy(&e->demand_mu);
	free(e);
	r->be_priv = NULL;
}

static int emu_stats(struct run *r, struct link_stats **out, int *n)
{
	return fabric_stats(E(r)->fab, out, n);
}

const struct backend_ops backend_emu = {
	.name = "emu",
	.wallclock = true,
	.setup = emu_setup,
	.stop = emu_stop,
	.teardown = emu_teardown,
	.now = emu_now,
	.poll = emu_poll,
	.start_task = emu_start_task,
	.fetch = emu_fetch,
	.preempt = emu_preempt,
	.resume = emu_resume,
	.copy = emu_copy,
	.stats = emu_stats,
	.failure = emu_failure,
	.summary = emu_summary,
};
