/* The load soak (soak_load.c, docs/soak.md): nodelet-mockapi in-process
 * under concurrent mixed load — writers doing read-modify-write on a
 * shared ConfigMap (conflicts) and create/get/update/patch/delete/list on
 * their own ConfigMaps, watchers opening and closing watches — for a
 * bounded time. Each writer keeps the tally of what the server
 * acknowledged; at the end the store must hold exactly that. */
#ifndef NL_SOAK_LOAD_H
#define NL_SOAK_LOAD_H

#include <nodelet/clock.h>
#include <pthread.h>
#include <stdint.h>

#include "soak_common.h"
#include "soak_http.h"

#define SOAK_NS "default"
#define SOAK_SHARED "soak-shared"
#define SOAK_LABEL "soak-writer"
/* Own ConfigMaps per writer: soak-w<W>-<K>, K below this. */
#define SOAK_OBJECTS 12
#define SOAK_MAX_WRITERS 64

typedef enum {
	SOAK_OP_INCREMENT, /* shared counter, retried on 409 */
	SOAK_OP_CREATE,
	SOAK_OP_GET,
	SOAK_OP_UPDATE,
	SOAK_OP_PATCH,
	SOAK_OP_DELETE,
	SOAK_OP_LIST,
	SOAK_OP_MISSING, /* GET of a name that never exists: 404 */
	SOAK_NOPS
} soak_op;

const char *soak_op_name(soak_op op);

/* What one writer's objects hold, as acknowledged by the server. */
typedef struct {
	int exists;
	unsigned long v; /* data.v, written by update */
	unsigned long p; /* data.p, written by patch */
} soak_object;

typedef struct soak_load soak_load;

typedef struct {
	soak_load *L;
	unsigned id;
	nl_rand rng;
	pthread_t thread;
	unsigned long increments; /* acknowledged increments of data.w<id> */
	soak_object objects[SOAK_OBJECTS];
	unsigned long ops[SOAK_NOPS];
	unsigned long conflicts; /* 409s on the shared counter, each retried */
	unsigned long requests;
} soak_writer;

typedef struct {
	soak_load *L;
	unsigned id;
	nl_rand rng;
	pthread_t thread;
	unsigned long opened, server_ended, cancelled, timed_out, refused;
	unsigned long events, bookmarks, expired;
	unsigned long requests;
	char old_rv[64]; /* the first list's resourceVersion, to start from later */
	/* The highest data.w<i> of the shared counter any event showed. */
	unsigned long seen[SOAK_MAX_WRITERS];
} soak_watcher;

struct soak_load {
	soak_args args;
	long nwriters, nwatchers;
	const char *base;
	double deadline; /* real time; set before the threads start */
	int stop;        /* atomic: stop before the deadline */
	soak_writer *writers;
	soak_watcher *watchers;
};

/* Whether the threads go on. */
static inline int soak_load_running(soak_load *L)
{
	return !__atomic_load_n(&L->stop, __ATOMIC_RELAXED) && soak_real_now() < L->deadline;
}

/* Thread bodies (soak_load_writer.c, soak_load_watcher.c). Failures go to
 * soak_fail; they run until L->deadline. */
void *soak_writer_main(void *arg);
void *soak_watcher_main(void *arg);

#endif
