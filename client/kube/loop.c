/* The event loop: two curl multi handles (requests with a bounded keep-alive
 * pool, streams without a limit) on one epoll set, plus the clock's timers.
 *
 * Callbacks never run inside libcurl: write callbacks only buffer and mark
 * the transfer dirty; stream data is delivered after curl_multi_socket_action
 * returns, completions after curl_multi_info_read. Transfers cancelled while
 * an iteration may still reach them are freed at the end of the step. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "kube.h"

#define NMULTI 2
#define MAX_EVENTS 256

typedef struct {
	nl_loop *loop;
	int idx;
	CURLM *multi;
	int64_t deadline_ms; /* libcurl's timeout on the monotonic clock; -1 none */
} multi_slot;

/* A watched descriptor. Its epoll data is (NMULTI << 32 | id), never a
 * pointer: an event read in the same step as its removal finds no watch
 * with that id and is dropped. */
struct nl_loop_watch {
	nl_loop *loop;
	int fd;
	uint32_t id;
	uint32_t events;
	nl_loop_watch_fn fn;
	void *payload;
	nl_loop_watch *next;
};

struct nl_loop {
	int epfd;
	nl_loop_watch *fds; /* watched descriptors, newest first; few */
	uint32_t next_fd_id;
	multi_slot m[NMULTI];
	nl_clock *clock;
	int own_clock;
	unsigned active;  /* transfers in a multi */
	unsigned waiting; /* transfers waiting for a timer */
	int in_step;
	int stop;
	nl__io *dirty;
	nl__io *graveyard;
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nl_loop_options_init(nl_loop_options *o)
{
	o->clock = NULL;
	o->max_host_connections = 64;
	o->max_total_connections = 256;
}

static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	multi_slot *ms = userp;
	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(ms->loop->epfd, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	struct epoll_event ev = {0};
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	ev.data.u64 = (uint64_t)(unsigned)s | (uint64_t)ms->idx << 32;
	if (epoll_ctl(ms->loop->epfd, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT)
		epoll_ctl(ms->loop->epfd, EPOLL_CTL_ADD, s, &ev);
	return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	multi_slot *ms = userp;
	(void)multi;
	ms->deadline_ms = timeout_ms < 0 ? -1 : mono_ms() + timeout_ms;
	return 0;
}

static int multi_setup(nl_loop *l, int idx, const nl_loop_options *o)
{
	multi_slot *ms = &l->m[idx];
	ms->loop = l;
	ms->idx = idx;
	ms->deadline_ms = -1;
	ms->multi = curl_multi_init();
	if (!ms->multi)
		return NL_ENOMEM;
	curl_multi_setopt(ms->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(ms->multi, CURLMOPT_SOCKETDATA, ms);
	curl_multi_setopt(ms->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(ms->multi, CURLMOPT_TIMERDATA, ms);
	if (idx == 0) {
		curl_multi_setopt(ms->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
		                  o->max_host_connections);
		curl_multi_setopt(ms->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
		                  o->max_total_connections);
		/* Keep every pooled connection alive between bursts. */
		curl_multi_setopt(ms->multi, CURLMOPT_MAXCONNECTS, o->max_total_connections);
	}
	return 0;
}

int nl_loop_new(nl_loop **out, const nl_loop_options *o)
{
	nl_loop_options def;
	nl_loop_options_init(&def);
	if (o) {
		def.clock = o->clock;
		if (o->max_host_connections > 0)
			def.max_host_connections = o->max_host_connections;
		if (o->max_total_connections > 0)
			def.max_total_connections = o->max_total_connections;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NL_ERROR;
	nl_loop *l = calloc(1, sizeof(*l));
	int rc = NL_ENOMEM;
	if (!l)
		goto fail;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		rc = NL_ERROR;
		goto fail;
	}
	for (int i = 0; i < NMULTI; i++)
		if ((rc = multi_setup(l, i, &def)) != 0)
			goto fail;
	l->clock = def.clock;
	if (!l->clock) {
		if ((rc = nl_clock_new_real(&l->clock)) != 0)
			goto fail;
		l->own_clock = 1;
	}
	*out = l;
	return 0;
fail:
	nl_loop_free(l);
	curl_global_cleanup();
	return rc;
}

static void free_graveyard(nl_loop *l)
{
	while (l->graveyard) {
		nl__io *io = l->graveyard;
		l->graveyard = io->next;
		io->release(io);
	}
}

void nl_loop_free(nl_loop *l)
{
	if (!l)
		return;
	free_graveyard(l);
	while (l->fds)
		nl_loop_watch_remove(l->fds);
	for (int i = 0; i < NMULTI; i++)
		if (l->m[i].multi)
			curl_multi_cleanup(l->m[i].multi);
	if (l->epfd > 0)
		close(l->epfd);
	if (l->own_clock)
		nl_clock_free(l->clock);
	int inited = l->m[0].multi != NULL;
	free(l);
	/* Balances the curl_global_init of nl_loop_new (reference counted). */
	if (inited)
		curl_global_cleanup();
}

nl_clock *nl_loop_clock(const nl_loop *l)
{
	return l->clock;
}

int nl_loop_fd(const nl_loop *l)
{
	return l->epfd;
}

unsigned nl_loop_pending(const nl_loop *l)
{
	return l->active + l->waiting;
}

void nl_loop_stop(nl_loop *l)
{
	l->stop = 1;
}

void nl__loop_waiting(nl_loop *l, int delta)
{
	l->waiting = (unsigned)((int)l->waiting + delta);
}

int nl__loop_add(nl_loop *l, nl__io *io)
{
	CURLMcode mc = curl_multi_add_handle(l->m[io->stream ? 1 : 0].multi, io->easy);
	if (mc != CURLM_OK)
		return mc == CURLM_OUT_OF_MEMORY ? NL_ENOMEM : NL_ERROR;
	io->active = 1;
	l->active++;
	return 0;
}

void nl__loop_remove(nl_loop *l, nl__io *io)
{
	if (!io->active)
		return;
	curl_multi_remove_handle(l->m[io->stream ? 1 : 0].multi, io->easy);
	io->active = 0;
	l->active--;
}

void nl__loop_mark_dirty(nl_loop *l, nl__io *io)
{
	if (io->dirty)
		return;
	io->dirty = 1;
	io->next = l->dirty;
	l->dirty = io;
}

void nl__loop_release(nl_loop *l, nl__io *io)
{
	io->dead = 1;
	if (!l->in_step && !io->dirty) {
		io->release(io);
		return;
	}
	/* Still reachable from the dirty list or an iteration: free later. The
	 * dirty list skips dead transfers and unlinks them first. */
	if (io->dirty)
		return; /* drain_dirty moves it to the graveyard */
	io->next = l->graveyard;
	l->graveyard = io;
}

/* Deliver stream data of every dirty transfer. */
static int drain_dirty(nl_loop *l)
{
	int n = 0;
	while (l->dirty) {
		nl__io *io = l->dirty;
		l->dirty = io->next;
		io->dirty = 0;
		if (io->dead) {
			io->next = l->graveyard;
			l->graveyard = io;
			continue;
		}
		io->drain(io);
		n++;
	}
	return n;
}

static int socket_action(nl_loop *l, multi_slot *ms, curl_socket_t s, int flags)
{
	int running;
	curl_multi_socket_action(ms->multi, s, flags, &running);
	return drain_dirty(l);
}

static int completions(nl_loop *l)
{
	int n = 0;
	for (int i = 0; i < NMULTI; i++) {
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(l->m[i].multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			nl__io *io = NULL;
			CURLcode cc = msg->data.result;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&io);
			nl__loop_remove(l, io);
			/* Data that arrived with the end of the transfer first. */
			if (io->dirty)
				n += drain_dirty(l);
			if (!io->dead) {
				io->done(io, cc);
				n++;
			}
		}
	}
	return n;
}

/* Microseconds until the earliest clock timer or libcurl deadline; -1 none. */
static int64_t next_wait_usec(nl_loop *l)
{
	int64_t wait = -1, due;
	if (nl_clock_next_deadline(&due, l->clock) == 0) {
		int64_t d = due - nl_clock_mono(l->clock);
		wait = d > 0 ? d : 0;
	}
	int64_t now = mono_ms();
	for (int i = 0; i < NMULTI; i++) {
		if (l->m[i].deadline_ms < 0)
			continue;
		int64_t d = (l->m[i].deadline_ms - now) * 1000;
		if (d < 0)
			d = 0;
		if (wait < 0 || d < wait)
			wait = d;
	}
	return wait;
}

int nl_loop_timeout_ms(nl_loop *l)
{
	int64_t w = next_wait_usec(l);
	if (w < 0)
		return -1;
	w = (w + 999) / 1000;
	return w > 0x7fffffff ? 0x7fffffff : (int)w;
}

/* --- watched descriptors -------------------------------------------------- */

static uint64_t fd_key(const nl_loop_watch *w)
{
	return (uint64_t)NMULTI << 32 | w->id;
}

int nl_loop_watch_add(nl_loop_watch **out, nl_loop *l, int fd, uint32_t events, nl_loop_watch_fn fn,
                      void *payload)
{
	nl_loop_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NL_ENOMEM;
	*w = (nl_loop_watch){l, fd, ++l->next_fd_id, events, fn, payload, l->fds};
	struct epoll_event ev = {.events = events, .data.u64 = fd_key(w)};
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		free(w);
		return NL_ERROR;
	}
	l->fds = w;
	*out = w;
	return 0;
}

int nl_loop_watch_set_events(nl_loop_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.u64 = fd_key(w)};
	if (events == w->events)
		return 0;
	if (epoll_ctl(w->loop->epfd, EPOLL_CTL_MOD, w->fd, &ev) != 0)
		return NL_ERROR;
	w->events = events;
	return 0;
}

void nl_loop_watch_remove(nl_loop_watch *w)
{
	if (!w)
		return;
	nl_loop_watch **p = &w->loop->fds;
	while (*p && *p != w)
		p = &(*p)->next;
	if (*p)
		*p = w->next;
	epoll_ctl(w->loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	free(w);
}

/* Run the watch an event is for, if it is still there and wants it. */
static int fd_event(nl_loop *l, uint32_t id, uint32_t events)
{
	for (nl_loop_watch *w = l->fds; w; w = w->next) {
		if (w->id != id)
			continue;
		if (!w->events)
			return 0;
		w->fn(w->fd, events, w->payload);
		return 1;
	}
	return 0;
}

/* Wait for network events (or, with nothing in flight, on the clock). */
static int wait_events(nl_loop *l, int timeout_ms, struct epoll_event *evs)
{
	int64_t wait = next_wait_usec(l);
	if (timeout_ms >= 0 && (wait < 0 || wait > (int64_t)timeout_ms * 1000))
		wait = (int64_t)timeout_ms * 1000;
	/* A fake clock with watched descriptors: serve the ready ones at this
	 * virtual time, else jump as below; with no timer at all, wait for
	 * them for real. */
	if (l->active == 0 && l->fds && nl_clock_advance(l->clock, 0) == 0) {
		int n = epoll_wait(l->epfd, evs, MAX_EVENTS, 0);
		if (n != 0 || wait == 0)
			return n < 0 ? (errno == EINTR ? 0 : NL_ERROR) : n;
		if (wait > 0 && nl_clock_next_deadline(&(int64_t){0}, l->clock) == 0)
			return nl_clock_advance(l->clock, wait) == 0 ? 0 : NL_ERROR;
	} else if (l->active == 0 && !l->fds) {
		if (wait <= 0)
			return 0;
		/* A fake clock jumps (firing its timers on the way is left to
		 * the caller's run_due); a real one sleeps. */
		if (nl_clock_advance(l->clock, 0) == 0)
			return nl_clock_advance(l->clock, wait) == 0 ? 0 : NL_ERROR;
		return nl_clock_sleep(l->clock, wait) == 0 ? 0 : NL_ECANCELED;
	}
	int ms = wait < 0 ? -1 : (int)((wait + 999) / 1000);
	int n = epoll_wait(l->epfd, evs, MAX_EVENTS, ms);
	if (n < 0)
		return errno == EINTR ? 0 : NL_ERROR;
	return n;
}

int nl_loop_step(nl_loop *l, int timeout_ms)
{
	struct epoll_event evs[MAX_EVENTS];
	if (nl_clock_stopped(l->clock))
		return NL_ECANCELED;
	l->in_step = 1;
	int n = 0, nev = wait_events(l, timeout_ms, evs);
	if (nev < 0) {
		l->in_step = 0;
		return nev;
	}
	for (int i = 0; i < nev; i++) {
		if ((evs[i].data.u64 >> 32) == NMULTI) {
			n += fd_event(l, (uint32_t)evs[i].data.u64, evs[i].events);
			continue;
		}
		multi_slot *ms = &l->m[evs[i].data.u64 >> 32];
		curl_socket_t s = (curl_socket_t)(evs[i].data.u64 & 0xffffffffu);
		int flags = (evs[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
		            (evs[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
		            (evs[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
		n += socket_action(l, ms, s, flags);
	}
	int64_t now = mono_ms();
	for (int i = 0; i < NMULTI; i++) {
		if (l->m[i].deadline_ms >= 0 && l->m[i].deadline_ms <= now) {
			l->m[i].deadline_ms = -1;
			n += socket_action(l, &l->m[i], CURL_SOCKET_TIMEOUT, 0);
		}
	}
	n += completions(l);
	n += (int)nl_clock_run_due(l->clock);
	/* Timers may have started transfers whose first action is due now. */
	free_graveyard(l);
	l->in_step = 0;
	return n;
}

int nl_loop_run(nl_loop *l)
{
	l->stop = 0;
	while (!l->stop) {
		int64_t due;
		if (l->active == 0 && l->waiting == 0 &&
		    nl_clock_next_deadline(&due, l->clock) != 0)
			break;
		int rc = nl_loop_step(l, -1);
		if (rc < 0)
			return rc == NL_ECANCELED ? 0 : rc;
	}
	return 0;
}
