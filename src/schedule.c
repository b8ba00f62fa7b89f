// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The jittered absolute sampling schedule. */
#include "config.h"

#include <time.h>

#include "rbflame/schedule.h"

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t
xorshift(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* Deadline of tick n: its slot start plus up to half a period of jitter,
 * centred, so consecutive deadlines stay ordered and the mean rate is
 * exact. */
static uint64_t
deadline(struct schedule *s, uint64_t n)
{
	uint64_t half = s->period_ns / 2;
	uint64_t j = half ? xorshift(&s->rng) % half : 0;

	return s->start_ns + n * s->period_ns + s->period_ns / 4 + j;
}

void
schedule_init(struct schedule *s, uint64_t start_ns, double rate_hz,
	      uint64_t seed)
{
	s->start_ns = start_ns;
	s->period_ns = (uint64_t)(1e9 / rate_hz);
	if (s->period_ns == 0)
		s->period_ns = 1;
	s->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	s->n = 0;
	s->late = 0;
	s->next_ns = deadline(s, 0);
}

uint64_t
schedule_advance(struct schedule *s, uint64_t now)
{
	uint64_t skipped = 0;

	s->n++;
	/* A slot whose end has passed can no longer be sampled in time. */
	while (s->start_ns + (s->n + 1) * s->period_ns <= now) {
		s->n++;
		skipped++;
	}
	s->late += skipped;
	s->next_ns = deadline(s, s->n);
	/* Its deadline passed already (this tick ran long): not at once
	 * but after a random part of a period. Back to back, each stop
	 * would come a fixed time (our own work) after the last resume,
	 * the target's progress between samples constant, and the samples
	 * could fall into step with a loop of it: on a host whose stops
	 * take milliseconds, two runs of one three-step loop gave 59% and
	 * 33% to one step. */
	if (s->next_ns <= now) {
		uint64_t half = s->period_ns / 2;

		s->next_ns = now + 1 + (half ? xorshift(&s->rng) % half : 0);
	}
	return skipped;
}
