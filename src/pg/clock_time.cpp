/*
 * clock_time.cpp: the clock the time-ordered generators read (clock.hpp):
 * the wall clock, the monotonic clock, and the time the generators follow.
 *
 * Shared memory "id_gen clock": the snowflake/jsid epoch of this start, and
 * the monotonic reference, the offset such that monotonic + offset is the
 * time the generators may follow (idgen_clock_confirm_ms()), taken when the
 * struct is made (the server start when preloaded).
 */
#include "pg/clock.hpp"

#include "pg/guc.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/spin.h"
}

#include <ctime>


typedef struct IdgenClockShared
{
	int64		epoch_ms;		/* epoch of this start, fixed at creation */
	pg_atomic_uint64 mono_offset_ns;	/* followed - monotonic, raised only */
	slock_t		mutex;			/* the catch-up below */
	int64		ahead_mono_ns;	/* monotonic ns the wall clock was seen ahead; 0: it is not */
	int64		ahead_offset_ns;	/* mono_offset_ns then */
} IdgenClockShared;

static IdgenClockShared *clock_shared = nullptr;

/* Test builds add an offset (id_gen.test_*_offset_ms) to each clock; others have none. */
#ifdef IDGEN_TEST_HOOKS
#define CLOCK_TEST_OFFSET_NS(ms) ((int64) ((ms) * 1000000.0))
#else
#define CLOCK_TEST_OFFSET_NS(ms) 0
#endif

static int64
clock_read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64
idgen_clock_now_ns(void)
{
	return clock_read_ns(CLOCK_REALTIME) + CLOCK_TEST_OFFSET_NS(idgen_test_clock_offset_ms);
}

int64
idgen_clock_now_us(void)
{
	return idgen_clock_now_ns() / 1000;
}

int64
idgen_clock_now_ms(void)
{
	return idgen_clock_now_ns() / 1000000;
}

int64
idgen_clock_mono_ns(void)
{
#ifdef CLOCK_BOOTTIME
	return clock_read_ns(CLOCK_BOOTTIME) + CLOCK_TEST_OFFSET_NS(idgen_test_monotonic_offset_ms);
#else
	return clock_read_ns(CLOCK_MONOTONIC) + CLOCK_TEST_OFFSET_NS(idgen_test_monotonic_offset_ms);
#endif
}

void
idgen_sleep_ms(int64 ms)
{
	while (ms > 0)
	{
		int64		chunk = ms > 100 ? 100 : ms;

		CHECK_FOR_INTERRUPTS();
		pg_usleep((long) chunk * 1000L);
		ms -= chunk;
	}
	CHECK_FOR_INTERRUPTS();
}

static void
clock_shared_init(void *ptr)
{
	IdgenClockShared *cs = static_cast<IdgenClockShared *>(ptr);

	/* Read once per start: ids must not change meaning while the server runs. */
	cs->epoch_ms = idgen_snowflake_epoch_ms;
	/* the reference: the wall clock as it is when shared memory is made */
	pg_atomic_init_u64(&cs->mono_offset_ns, (uint64) (idgen_clock_now_ns() - idgen_clock_mono_ns()));
	SpinLockInit(&cs->mutex);
	cs->ahead_mono_ns = 0;
	cs->ahead_offset_ns = 0;
}

static const IdgenShmemStruct clock_shmem = {
	"id_gen clock", sizeof(IdgenClockShared), clock_shared_init
};

static IdgenClockShared *
clock_attach(void)
{
	if (clock_shared == nullptr)
		clock_shared = static_cast<IdgenClockShared *>(idgen_shmem_attach(&clock_shmem));
	return clock_shared;
}

int64
idgen_clock_epoch_ms(void)
{
	return clock_attach()->epoch_ms;
}

/*
 * The time the generators follow is monotonic + offset, the offset taken
 * when shared memory was made (the server start when preloaded), and never
 * beyond the wall clock.  While the wall clock is ahead of it (a forward
 * step, or a correction of a clock that was behind at the start), the
 * offset grows by at most the real time elapsed since the wall clock was
 * first seen ahead: the followed time runs at most twice as fast as real
 * time until it meets the wall clock.  A glitch moves ids at most that
 * fast (and not at all once corrected), a correction is caught up, and
 * steps below the slack cannot accumulate: each catch-up is paid for in
 * real time.
 */
#define CLOCK_SLACK_NS 1000000

int64
idgen_clock_confirm_ms(int64 wall_ms)
{
	IdgenClockShared *cs = clock_attach();
	int64		mono = idgen_clock_mono_ns();
	int64		wall_off = wall_ms * 1000000 - mono;
	int64		off = (int64) pg_atomic_read_u64(&cs->mono_offset_ns);

	if (wall_off <= off + CLOCK_SLACK_NS)
	{
		if (unlikely(cs->ahead_mono_ns != 0))
		{
			SpinLockAcquire(&cs->mutex);
			cs->ahead_mono_ns = 0;
			SpinLockRelease(&cs->mutex);
		}
		return wall_ms;
	}
	SpinLockAcquire(&cs->mutex);
	off = (int64) pg_atomic_read_u64(&cs->mono_offset_ns);
	if (cs->ahead_mono_ns == 0 || cs->ahead_mono_ns > mono)
	{
		cs->ahead_mono_ns = mono;
		cs->ahead_offset_ns = off;
	}
	else
	{
		int64		allowed = cs->ahead_offset_ns + (mono - cs->ahead_mono_ns);

		if (allowed >= wall_off)
		{
			allowed = wall_off;
			cs->ahead_mono_ns = 0;	/* caught up */
		}
		if (allowed > off)
		{
			off = allowed;
			pg_atomic_write_u64(&cs->mono_offset_ns, (uint64) off);
		}
	}
	SpinLockRelease(&cs->mutex);
	return (mono + off) / 1000000;
}

/* What id_gen.clock_streams() shows: the time followed now (Unix ms). */
int64
idgen_clock_followed_ms(void)
{
	return (idgen_clock_mono_ns() + (int64) pg_atomic_read_u64(&clock_attach()->mono_offset_ns)) / 1000000;
}

void
idgen_clock_init(void)
{
	idgen_shmem_register(&clock_shmem);
}
