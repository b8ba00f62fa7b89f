/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The sampling clock: an absolute schedule (start + n x period) with each
 * tick jittered inside its period, so sampling neither drifts nor runs in
 * lockstep with the target's own timers. A tick that comes a whole period
 * late is counted and the missed ones are skipped, never bunched up; a
 * tick that runs past the next one's deadline is followed after a random
 * wait, never back to back (which would fall into step with the target).
 */
#ifndef RBFLAME_SCHEDULE_H
#define RBFLAME_SCHEDULE_H

#include <stdint.h>

struct schedule {
	uint64_t start_ns;
	uint64_t period_ns;
	uint64_t n;		/* index of the next tick */
	uint64_t next_ns;	/* deadline of the next tick */
	uint64_t rng;		/* xorshift state */
	uint64_t late;		/* ticks skipped because we were late */
};

/** Starts a schedule at start_ns for rate_hz ticks a second. */
void schedule_init(struct schedule *s, uint64_t start_ns, double rate_hz,
		   uint64_t seed);
/**
 * Called when the tick whose deadline was s->next_ns has fired at now_ns:
 * advances to the next deadline after now_ns, counting skipped ticks as
 * late; a deadline already past becomes now_ns plus a random wait of up
 * to half a period. Returns the number skipped.
 */
uint64_t schedule_advance(struct schedule *s, uint64_t now_ns);

/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

#endif
