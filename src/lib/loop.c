/*
 * loop: epoll event loop with one-shot timers and a before_sleep hook
 * (see loop.h). One turn: before_sleep, wait (bounded by the next timer),
 * dispatch fd events, then run due timers.
 *
 * Safety inside callbacks: each registration gets a generation number that
 * travels in the epoll event, so an fd deleted (and perhaps reused by a new
 * accept) earlier in the same turn never gets a stale event. Timers are a
 * binary min-heap ordered by (due time, id) with a hash from id to timer
 * for O(log n) cancel; timers added while timers are being run wait for
 * the next turn, so a 0 ms timer that re-arms itself cannot starve fds.
 */
#include "loop.h"
#include "xalloc.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

typedef struct fd_ent {
	loop_fd_f cb;
	void *arg;
	uint32_t events;
	uint32_t gen;            /* 0 = not registered */
} fd_ent_t;

typedef struct timer {
	uint64_t id;
	uint64_t due;
	loop_timer_f cb;
	void *arg;
	size_t heap_idx;
	struct timer *hnext;     /* id hash chain */
} ltimer_t;

struct loop {
	int epfd;
	int stop;
	uint64_t now;
	fd_ent_t *fds;
	size_t nfds;             /* capacity of fds[] */
	uint32_t gen;
	ltimer_t **heap;
	size_t nheap, aheap;
	ltimer_t **hash;         /* id -> timer, chained */
	size_t hsize;            /* power of two */
	uint64_t next_id;
	loop_hook_f before_sleep;
	void *before_sleep_arg;
	loop_turn_f turn_hook;
	void *turn_arg;
	uint64_t turn_start_us;  /* when the current turn's events came in */
	uint64_t turn_start_cpu; /* and the thread's CPU time then */
	uint64_t max_turn_us, max_turn_cpu_us, turns;
};

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void loop_set_turn_hook(loop_t *l, loop_turn_f cb, void *arg)
{
	l->turn_hook = cb;
	l->turn_arg = arg;
}

uint64_t loop_max_turn_us(const loop_t *l, uint64_t *cpu_us, uint64_t *turns)
{
	if (cpu_us)
		*cpu_us = l->max_turn_cpu_us;
	if (turns)
		*turns = l->turns;
	return l->max_turn_us;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

loop_t *loop_create(void)
{
	loop_t *l = xcalloc(1, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	l->now = mono_ms();
	l->next_id = 1;
	l->hsize = 64;
	l->hash = xcalloc(l->hsize, sizeof(*l->hash));
	return l;
}

void loop_destroy(loop_t *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nheap; i++)
		free(l->heap[i]);
	free(l->heap);
	free(l->hash);
	free(l->fds);
	close(l->epfd);
	free(l);
}

/* ---- fds ---- */

static uint32_t to_epoll(uint32_t ev)
{
	uint32_t e = 0;
	if (ev & LOOP_READ)
		e |= EPOLLIN | EPOLLRDHUP;
	if (ev & LOOP_WRITE)
		e |= EPOLLOUT;
	return e;
}

int loop_add_fd(loop_t *l, int fd, uint32_t events, loop_fd_f cb, void *arg)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if ((size_t)fd >= l->nfds) {
		size_t n = l->nfds ? l->nfds : 64;
		while (n <= (size_t)fd)
			n *= 2;
		l->fds = xrealloc(l->fds, n * sizeof(*l->fds));
		memset(l->fds + l->nfds, 0, (n - l->nfds) * sizeof(*l->fds));
		l->nfds = n;
	}
	fd_ent_t *e = &l->fds[fd];
	if (e->gen) {
		errno = EEXIST;
		return -1;
	}
	if (++l->gen == 0)
		l->gen = 1;
	struct epoll_event ev = { .events = to_epoll(events) };
	ev.data.u64 = ((uint64_t)l->gen << 32) | (uint32_t)fd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -1;
	e->cb = cb;
	e->arg = arg;
	e->events = events;
	e->gen = l->gen;
	return 0;
}

int loop_mod_fd(loop_t *l, int fd, uint32_t events)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].gen) {
		errno = ENOENT;
		return -1;
	}
	fd_ent_t *e = &l->fds[fd];
	if (e->events == events)
		return 0;
	struct epoll_event ev = { .events = to_epoll(events) };
	ev.data.u64 = ((uint64_t)e->gen << 32) | (uint32_t)fd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0)
		return -1;
	e->events = events;
	return 0;
}

void loop_del_fd(loop_t *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].gen)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	memset(&l->fds[fd], 0, sizeof(l->fds[fd]));
}

/* ---- timers ---- */

static int timer_less(const ltimer_t *a, const ltimer_t *b)
{
	return a->due < b->due || (a->due == b->due && a->id < b->id);
}

static void heap_set(loop_t *l, size_t i, ltimer_t *t)
{
	l->heap[i] = t;
	t->heap_idx = i;
}

static void heap_up(loop_t *l, size_t i)
{
	ltimer_t *t = l->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!timer_less(t, l->heap[p]))
			break;
		heap_set(l, i, l->heap[p]);
		i = p;
	}
	heap_set(l, i, t);
}

static void heap_down(loop_t *l, size_t i)
{
	ltimer_t *t = l->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= l->nheap)
			break;
		if (c + 1 < l->nheap && timer_less(l->heap[c + 1], l->heap[c]))
			c++;
		if (!timer_less(l->heap[c], t))
			break;
		heap_set(l, i, l->heap[c]);
		i = c;
	}
	heap_set(l, i, t);
}

static void heap_remove(loop_t *l, ltimer_t *t)
{
	size_t i = t->heap_idx;
	ltimer_t *last = l->heap[--l->nheap];
	if (i < l->nheap) {
		heap_set(l, i, last);
		heap_down(l, i);
		heap_up(l, last->heap_idx);
	}
}

static size_t hslot(const loop_t *l, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (l->hsize - 1);
}

static void hash_grow(loop_t *l)
{
	size_t old = l->hsize;
	ltimer_t **oh = l->hash;
	l->hsize *= 2;
	l->hash = xcalloc(l->hsize, sizeof(*l->hash));
	for (size_t i = 0; i < old; i++)
		for (ltimer_t *t = oh[i], *n; t; t = n) {
			n = t->hnext;
			size_t s = hslot(l, t->id);
			t->hnext = l->hash[s];
			l->hash[s] = t;
		}
	free(oh);
}

static void hash_del(loop_t *l, ltimer_t *t)
{
	ltimer_t **pp = &l->hash[hslot(l, t->id)];
	while (*pp && *pp != t)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = t->hnext;
}

uint64_t loop_add_timer(loop_t *l, uint64_t ms, loop_timer_f cb, void *arg)
{
	ltimer_t *t = xmalloc(sizeof(*t));
	t->id = l->next_id++;
	/* from the real clock, not the turn's cached one: a timer set after
	 * a long callback (or long before loop_run) must not fire early */
	t->due = mono_ms() + ms;
	t->cb = cb;
	t->arg = arg;
	if (l->nheap + 1 > l->hsize)
		hash_grow(l);
	size_t s = hslot(l, t->id);
	t->hnext = l->hash[s];
	l->hash[s] = t;
	l->heap = xgrow(l->heap, sizeof(*l->heap), l->nheap + 1, &l->aheap);
	l->heap[l->nheap] = t;
	t->heap_idx = l->nheap++;
	heap_up(l, t->heap_idx);
	return t->id;
}

void loop_cancel_timer(loop_t *l, uint64_t id)
{
	if (!l || !id)
		return;
	for (ltimer_t *t = l->hash[hslot(l, id)]; t; t = t->hnext)
		if (t->id == id) {
			hash_del(l, t);
			heap_remove(l, t);
			free(t);
			return;
		}
}

static void run_timers(loop_t *l)
{
	uint64_t limit = l->next_id;   /* timers added from here on wait */
	while (l->nheap && !l->stop) {
		ltimer_t *t = l->heap[0];
		if (t->due > l->now || t->id >= limit)
			break;
		hash_del(l, t);
		heap_remove(l, t);
		loop_timer_f cb = t->cb;
		void *arg = t->arg;
		free(t);   /* before the call: cancel of this id is a no-op */
		cb(l, arg);
	}
}

/* ---- running ---- */

void loop_set_before_sleep(loop_t *l, loop_hook_f cb, void *arg)
{
	l->before_sleep = cb;
	l->before_sleep_arg = arg;
}

void loop_stop(loop_t *l)
{
	l->stop = 1;
}

uint64_t loop_now_ms(loop_t *l)
{
	return l->now;
}

int loop_run(loop_t *l)
{
	struct epoll_event evs[256];
	l->stop = 0;
	while (!l->stop) {
		if (l->before_sleep)
			l->before_sleep(l, l->before_sleep_arg);
		if (l->turn_start_us) {
			/* events, timers and before_sleep: the turn's work, in
			 * wall time and in the thread's CPU time (which a busy
			 * machine's preemption does not stretch) */
			uint64_t d = clock_us(CLOCK_MONOTONIC) - l->turn_start_us;
			uint64_t c = clock_us(CLOCK_THREAD_CPUTIME_ID) - l->turn_start_cpu;
			if (d > l->max_turn_us)
				l->max_turn_us = d;
			if (c > l->max_turn_cpu_us)
				l->max_turn_cpu_us = c;
			l->turns++;
			if (l->turn_hook && !l->stop)
				l->turn_hook(l, d, l->turn_arg);
		}
		if (l->stop)
			break;
		int timeout = -1;
		l->now = mono_ms();
		if (l->nheap) {
			uint64_t due = l->heap[0]->due;
			timeout = due <= l->now ? 0
				: (due - l->now > 3600000 ? 3600000 : (int)(due - l->now));
		}
		int n = epoll_wait(l->epfd, evs, (int)ARRAY_SIZE(evs), timeout);
		if (n < 0 && errno != EINTR)
			return -1;
		l->turn_start_us = clock_us(CLOCK_MONOTONIC);
		l->turn_start_cpu = clock_us(CLOCK_THREAD_CPUTIME_ID);
		l->now = l->turn_start_us / 1000;
		for (int i = 0; i < n && !l->stop; i++) {
			int fd = (int)(uint32_t)evs[i].data.u64;
			uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);
			if ((size_t)fd >= l->nfds || l->fds[fd].gen != gen)
				continue;   /* deleted (or replaced) this turn */
			uint32_t e = evs[i].events, ev = 0;
			if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				ev |= LOOP_READ;
			if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
				ev |= LOOP_WRITE;
			ev &= l->fds[fd].events ? l->fds[fd].events : ev;
			if (!ev)
				ev = l->fds[fd].events;   /* error: wake whatever it waits for */
			fd_ent_t ent = l->fds[fd];
			ent.cb(l, fd, ev, ent.arg);
		}
		run_timers(l);
	}
	return 0;
}
