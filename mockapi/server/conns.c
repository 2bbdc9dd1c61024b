/* Connection admission, idle reclaim and the header deadline (conns.h). */
#include "conns.h"

#include <nodelet/errors.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "core/log.h"

struct mock_conn {
	int fd;
	int busy;               /* a request is in progress */
	int cut;                /* shut down by us; waiting for the close */
	int served;             /* a request was answered on it before */
	int64_t since;          /* opened, or its last answer done (monotonic ms) */
	mock_conn *prev, *next; /* the idle list, oldest first */
};

struct mock_conns {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	pthread_t reaper;
	int reaper_started, stopping;
	unsigned max, header_ms, idle_ms;
	size_t open;    /* admitted and not closed, cut ones included */
	size_t cutting; /* cut, not yet closed */
	mock_conn *head, *tail;
	size_t reclaimed, refused, timed_out;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void unlink_idle(mock_conns *cs, mock_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else if (cs->head == c)
		cs->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else if (cs->tail == c)
		cs->tail = c->prev;
	c->prev = c->next = NULL;
}

static void link_idle(mock_conns *cs, mock_conn *c)
{
	c->prev = cs->tail;
	c->next = NULL;
	if (cs->tail)
		cs->tail->next = c;
	else
		cs->head = c;
	cs->tail = c;
}

/* Under mu: shut c down; libmicrohttpd closes it (mock_conns_closed). */
static void cut(mock_conns *cs, mock_conn *c)
{
	unlink_idle(cs, c);
	c->cut = 1;
	cs->cutting++;
	shutdown(c->fd, SHUT_RDWR);
}

static void *reaper_main(void *payload)
{
	mock_conns *cs = payload;
	pthread_mutex_lock(&cs->mu);
	while (!cs->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cs->wake, &cs->mu, &until);
		int64_t now = now_ms();
		for (mock_conn *c = cs->head, *next; c; c = next) {
			next = c->next;
			int64_t limit =
			    c->served ? (int64_t)cs->idle_ms + cs->header_ms : cs->header_ms;
			if (now - c->since > limit) {
				cut(cs, c);
				cs->timed_out++;
			}
		}
	}
	pthread_mutex_unlock(&cs->mu);
	return NULL;
}

int mock_conns_new(mock_conns **out, unsigned max, unsigned header_ms, unsigned idle_ms)
{
	mock_conns *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NL_ENOMEM;
	pthread_mutex_init(&cs->mu, NULL);
	pthread_cond_init(&cs->wake, NULL);
	cs->max = max;
	cs->header_ms = header_ms;
	cs->idle_ms = idle_ms;
	if (header_ms > 0) {
		if (pthread_create(&cs->reaper, NULL, reaper_main, cs) != 0) {
			mock_conns_free(cs);
			return NL_EIO;
		}
		cs->reaper_started = 1;
	}
	*out = cs;
	return 0;
}

void mock_conns_free(mock_conns *cs)
{
	if (!cs)
		return;
	if (cs->reaper_started) {
		pthread_mutex_lock(&cs->mu);
		cs->stopping = 1;
		pthread_cond_signal(&cs->wake);
		pthread_mutex_unlock(&cs->mu);
		pthread_join(cs->reaper, NULL);
	}
	/* Entries left belong to connections libmicrohttpd closed without
	 * notifying (it has stopped): free them. */
	for (mock_conn *c = cs->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_cond_destroy(&cs->wake);
	pthread_mutex_destroy(&cs->mu);
	free(cs);
}

int mock_conns_admit(mock_conns *cs)
{
	int ok = 1;
	pthread_mutex_lock(&cs->mu);
	/* Cut connections are on their way out and do not count. */
	if (cs->max && cs->open - cs->cutting >= cs->max) {
		if (cs->head) {
			cut(cs, cs->head);
			cs->reclaimed++;
		} else {
			ok = 0;
			cs->refused++;
		}
	}
	if (ok)
		cs->open++; /* reserved until opened or closed */
	pthread_mutex_unlock(&cs->mu);
	if (!ok)
		MOCK_LOG_V(2, "Connection refused: --max-connections reached, none idle",
		           NL_KV_UINT("maxConnections", cs->max));
	return ok;
}

mock_conn *mock_conns_opened(mock_conns *cs, int fd)
{
	mock_conn *c = calloc(1, sizeof(*c));
	pthread_mutex_lock(&cs->mu);
	if (c) {
		c->fd = fd;
		c->since = now_ms();
		link_idle(cs, c);
	} else {
		cs->open--; /* not tracked: its reservation goes */
	}
	pthread_mutex_unlock(&cs->mu);
	return c;
}

void mock_conns_busy(mock_conns *cs, mock_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	if (!c->busy && !c->cut) {
		unlink_idle(cs, c);
		c->busy = 1;
	}
	pthread_mutex_unlock(&cs->mu);
}

void mock_conns_idle(mock_conns *cs, mock_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	if (c->busy && !c->cut) {
		c->busy = 0;
		c->served = 1;
		c->since = now_ms();
		link_idle(cs, c);
	}
	pthread_mutex_unlock(&cs->mu);
}

void mock_conns_closed(mock_conns *cs, mock_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	if (c->cut)
		cs->cutting--;
	else if (!c->busy)
		unlink_idle(cs, c);
	cs->open--;
	pthread_mutex_unlock(&cs->mu);
	free(c);
}

size_t mock_conns_open(mock_conns *cs)
{
	pthread_mutex_lock(&cs->mu);
	size_t n = cs->open - cs->cutting;
	pthread_mutex_unlock(&cs->mu);
	return n;
}

void mock_conns_counts(mock_conns *cs, size_t *reclaimed, size_t *refused, size_t *cut_n)
{
	pthread_mutex_lock(&cs->mu);
	*reclaimed = cs->reclaimed;
	*refused = cs->refused;
	*cut_n = cs->timed_out;
	pthread_mutex_unlock(&cs->mu);
}
