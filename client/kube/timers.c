#include <nodelet/clock.h>

#include <stdlib.h>

typedef struct {
	int64_t due;
	uint64_t id; /* also the tie-breaker: equal deadlines fire in add order */
	nl_timer_fn fn;
	void *payload;
} timer_entry;

struct nl_timers {
	timer_entry *heap;
	size_t len;
	size_t cap;
	uint64_t next_id;
};

int nl_timers_new(nl_timers **out)
{
	nl_timers *t = calloc(1, sizeof(*t));
	if (!t)
		return NL_ENOMEM;
	t->next_id = 1;
	*out = t;
	return 0;
}

void nl_timers_free(nl_timers *t)
{
	if (!t)
		return;
	free(t->heap);
	free(t);
}

static int before(const timer_entry *a, const timer_entry *b)
{
	return a->due < b->due || (a->due == b->due && a->id < b->id);
}

static void swap(timer_entry *a, timer_entry *b)
{
	timer_entry tmp = *a;
	*a = *b;
	*b = tmp;
}

static void sift_up(nl_timers *t, size_t i)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&t->heap[i], &t->heap[parent]))
			break;
		swap(&t->heap[i], &t->heap[parent]);
		i = parent;
	}
}

static void sift_down(nl_timers *t, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < t->len && before(&t->heap[l], &t->heap[min]))
			min = l;
		if (r < t->len && before(&t->heap[r], &t->heap[min]))
			min = r;
		if (min == i)
			return;
		swap(&t->heap[i], &t->heap[min]);
		i = min;
	}
}

int nl_timers_add(uint64_t *id_out, nl_timers *t, int64_t due, nl_timer_fn fn, void *payload)
{
	if (t->len == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		timer_entry *heap = realloc(t->heap, cap * sizeof(*heap));
		if (!heap)
			return NL_ENOMEM;
		t->heap = heap;
		t->cap = cap;
	}
	uint64_t id = t->next_id++;
	t->heap[t->len] = (timer_entry){.due = due, .id = id, .fn = fn, .payload = payload};
	sift_up(t, t->len++);
	if (id_out)
		*id_out = id;
	return 0;
}

static void remove_at(nl_timers *t, size_t i)
{
	t->len--;
	if (i == t->len)
		return;
	t->heap[i] = t->heap[t->len];
	/* The moved entry may belong above or below its new slot. */
	sift_up(t, i);
	sift_down(t, i);
}

int nl_timers_cancel(nl_timers *t, uint64_t id)
{
	for (size_t i = 0; i < t->len; i++) {
		if (t->heap[i].id == id) {
			remove_at(t, i);
			return 0;
		}
	}
	return NL_ENOTFOUND;
}

int nl_timers_next_deadline(int64_t *out, const nl_timers *t)
{
	if (t->len == 0)
		return NL_ENOTFOUND;
	*out = t->heap[0].due;
	return 0;
}

int nl_timers_pop_due(nl_timer_fn *fn_out, void **payload_out, nl_timers *t, int64_t now)
{
	if (t->len == 0 || t->heap[0].due > now)
		return NL_ENOTFOUND;
	*fn_out = t->heap[0].fn;
	*payload_out = t->heap[0].payload;
	remove_at(t, 0);
	return 0;
}

size_t nl_timers_run_due(nl_timers *t, int64_t now)
{
	nl_timer_fn fn;
	void *payload;
	size_t n = 0;
	/* Pop before calling: the callback may add or cancel timers. */
	while (nl_timers_pop_due(&fn, &payload, t, now) == 0) {
		fn(payload);
		n++;
	}
	return n;
}

size_t nl_timers_count(const nl_timers *t)
{
	return t->len;
}
