/* The delay timer (delays.h): a sorted list of suspended connections and
 * one thread that resumes each when it is due. */
#include "delays.h"

#include <microhttpd.h>
#include <nodelet/errors.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct delay {
	struct delay *next;
	int64_t due; /* monotonic microseconds */
	struct MHD_Connection *conn;
} delay;

struct mock_delays {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	delay *head;
	int stop;
	pthread_t thread;
	int started;
};

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void resume_head_locked(mock_delays *d)
{
	delay *e = d->head;
	d->head = e->next;
	MHD_resume_connection(e->conn);
	free(e);
}

static void *delay_thread(void *arg)
{
	mock_delays *d = arg;
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		if (!d->head) {
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		int64_t now = mono_usec();
		if (d->head->due <= now) {
			resume_head_locked(d);
			continue;
		}
		struct timespec until = {(time_t)(d->head->due / 1000000),
		                         (long)(d->head->due % 1000000) * 1000};
		pthread_cond_timedwait(&d->cond, &d->lock, &until);
	}
	while (d->head)
		resume_head_locked(d);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int mock_delays_new(mock_delays **out)
{
	pthread_condattr_t attr;
	mock_delays *d = calloc(1, sizeof(*d));
	if (!d)
		return NL_ENOMEM;
	if (pthread_condattr_init(&attr) != 0)
		goto fail;
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(&d->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (rc != 0)
		goto fail;
	if (pthread_mutex_init(&d->lock, NULL) != 0) {
		pthread_cond_destroy(&d->cond);
		goto fail;
	}
	if (pthread_create(&d->thread, NULL, delay_thread, d) != 0) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		goto fail;
	}
	d->started = 1;
	*out = d;
	return 0;
fail:
	free(d);
	return NL_ERROR;
}

/* Suspending and queueing happen under one lock, so the timer cannot
 * resume a connection not yet suspended. */
int mock_delays_suspend(mock_delays *d, struct MHD_Connection *conn, unsigned ms)
{
	delay *e = d ? malloc(sizeof(*e)) : NULL;
	if (!e)
		return -1;
	e->due = mono_usec() + (int64_t)ms * 1000;
	e->conn = conn;
	pthread_mutex_lock(&d->lock);
	if (d->stop) {
		pthread_mutex_unlock(&d->lock);
		free(e);
		return -1;
	}
	MHD_suspend_connection(conn);
	delay **p = &d->head;
	while (*p && (*p)->due <= e->due)
		p = &(*p)->next;
	e->next = *p;
	*p = e;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void mock_delays_shutdown(mock_delays *d)
{
	if (!d || !d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = 1;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	d->started = 0;
}

void mock_delays_free(mock_delays *d)
{
	if (!d)
		return;
	mock_delays_shutdown(d);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d);
}
