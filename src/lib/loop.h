/*
 * loop: the single-threaded event loop of the daemons (epoll), in the
 * manner of Redis ae.c: fd callbacks, one-shot timers, and a before_sleep
 * hook that runs once per turn after all ready events were handled and
 * before the loop blocks again. The controller commits its state
 * transaction in before_sleep and only then flushes replies (see conn.h),
 * so no reply ever announces a change that is not durable.
 */
#ifndef SLUICE_LOOP_H
#define SLUICE_LOOP_H

#include <stdint.h>

#define LOOP_READ  0x1u
#define LOOP_WRITE 0x2u

typedef struct loop loop_t;
typedef void (*loop_fd_f)(loop_t *l, int fd, uint32_t events, void *arg);
typedef void (*loop_timer_f)(loop_t *l, void *arg);
typedef void (*loop_hook_f)(loop_t *l, void *arg);

loop_t *loop_create(void);
void loop_destroy(loop_t *l);                 /* accepts NULL */
/* Watch fd for events (LOOP_READ|LOOP_WRITE). 0 or -1 with errno. */
int loop_add_fd(loop_t *l, int fd, uint32_t events, loop_fd_f cb, void *arg);
int loop_mod_fd(loop_t *l, int fd, uint32_t events);
void loop_del_fd(loop_t *l, int fd);          /* safe inside callbacks */
/* One-shot timer after ms milliseconds; returns an id > 0. */
uint64_t loop_add_timer(loop_t *l, uint64_t ms, loop_timer_f cb, void *arg);
void loop_cancel_timer(loop_t *l, uint64_t id);
void loop_set_before_sleep(loop_t *l, loop_hook_f cb, void *arg);
/* Called once per turn, just before the loop blocks, with the
 * microseconds the turn was busy (from the wake-up through its events,
 * timers and before_sleep): the daemons' loop latency metric. */
typedef void (*loop_turn_f)(loop_t *l, uint64_t busy_us, void *arg);
void loop_set_turn_hook(loop_t *l, loop_turn_f cb, void *arg);
/* Run until loop_stop(); returns 0. Signals: use signalfd or a self-pipe
 * from the daemon. */
int loop_run(loop_t *l);
void loop_stop(loop_t *l);
/* The longest turn so far (ready events, due timers and before_sleep,
 * wall microseconds); in *cpu_us the most CPU time the loop's thread
 * spent in one turn, in *turns how many turns ran (each if not NULL). */
uint64_t loop_max_turn_us(const loop_t *l, uint64_t *cpu_us, uint64_t *turns);
/* Monotonic milliseconds, cached per turn. */
uint64_t loop_now_ms(loop_t *l);

#endif
