/*
 * guc.cpp: defines every id_gen.* setting in one place, so that their
 * ranges, contexts and defaults can be reviewed together.
 */
#include "pg/guc.hpp"

#include "core/hilo.hpp"
#include "core/utc_time.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "utils/guc.h"
}

#include <climits>
#include <ctime>

int			idgen_hilo_max_lo = 1000;
int			idgen_worker_id = -1;
bool		idgen_hilo_node_ranges = false;
char	   *idgen_snowflake_epoch = nullptr;
int64		idgen_snowflake_epoch_ms = 0;
int			idgen_snowflake_start_spread = 255;
int			idgen_launch_id = -1;
int			idgen_decimal_generator_id = -1;
int			idgen_decimal_claims_to = -1;
char	   *idgen_encode_key = nullptr;
char	   *idgen_node_tag = nullptr;
int			idgen_headroom_warning_days = 366;
int			idgen_headroom_critical_days = 30;
double		idgen_headroom_warning_percent = 90;
double		idgen_headroom_critical_percent = 99;
#ifdef IDGEN_TEST_HOOKS
double		idgen_test_clock_offset_ms = 0;
double		idgen_test_monotonic_offset_ms = 0;
int			idgen_test_wait_before_draw_lock = 0;
#endif

/*
 * id_gen.decimal_generator_id belongs to a database: decimal_id() reads it
 * from pg_db_role_setting, for this database and the others.  Set anywhere
 * else (a session, a role, the server's configuration) it would not be the
 * value decimal_id() uses, so it is refused there.
 */
static bool
check_decimal_generator_id(int *newval, void **extra, GucSource source)
{
	if (*newval == -1 || source == PGC_S_DEFAULT || source == PGC_S_DATABASE || source == PGC_S_TEST)
		return true;
	GUC_check_errdetail("id_gen.decimal_generator_id is a database's setting.");
	GUC_check_errhint("As a superuser, ALTER DATABASE name SET id_gen.decimal_generator_id = n.");
	return false;
}

/* id_gen.decimal_claims_to: a role's setting (ALTER ROLE ... SET), nowhere else. */
static bool
check_decimal_claims_to(int *newval, void **extra, GucSource source)
{
	if (*newval == -1 || source == PGC_S_DEFAULT || source == PGC_S_USER || source == PGC_S_TEST)
		return true;
	GUC_check_errdetail("id_gen.decimal_claims_to is kept by id_gen.decimal_id_claim() for the bootstrap superuser.");
	return false;
}

/* ShardingSphere's default epoch, so that ids decode the same way. */
#define IDGEN_DEFAULT_EPOCH "2016-11-01 00:00:00Z"

/*
 * An epoch must be a UTC timestamp not after now: a future epoch would give
 * negative times until it passes, and those ids would sort wrongly.
 */
static bool
check_snowflake_epoch(char **newval, void **extra, GucSource source)
{
	int64_t		ms;

	if (!idgen::parse_utc_timestamp(*newval, &ms))
	{
		GUC_check_errdetail("\"%s\" is not a UTC timestamp.", *newval);
		GUC_check_errhint("Use the form 'YYYY-MM-DD HH:MM:SSZ', e.g. '" IDGEN_DEFAULT_EPOCH "'.");
		return false;
	}
	if (ms < 0)
	{
		GUC_check_errdetail("The epoch %s is before 1970-01-01.", *newval);
		return false;
	}
	if (ms > static_cast<int64_t>(time(nullptr)) * 1000)
	{
		GUC_check_errdetail("The epoch %s is in the future.", *newval);
		GUC_check_errhint("Choose an epoch at or before the time the first id is generated.");
		return false;
	}
	/* The server frees *extra: free() on 15, pfree() from 16 (compat.hpp). */
	int64	   *parsed = static_cast<int64 *>(idgen_guc_extra_alloc(sizeof(int64)));

	if (parsed == nullptr)
		return false;
	*parsed = ms;
	*extra = parsed;
	return true;
}

/* A node tag: what hilo_next_text() writes after the '-' (core rule). */
static bool
check_node_tag(char **newval, void **extra, GucSource source)
{
	if (idgen::hilo_valid_node_tag(*newval))
		return true;
	GUC_check_errdetail("A node tag is 1 to %d letters, digits or underscores.", (int) idgen::kHiloNodeTagMax);
	GUC_check_errhint("Use a short name per server, e.g. 'A', 'B', 'eu1'.");
	return false;
}

static void
assign_snowflake_epoch(const char *newval, void *extra)
{
	idgen_snowflake_epoch_ms = *static_cast<int64 *>(extra);
}

void
idgen_define_gucs(void)
{
	DefineCustomIntVariable("id_gen.hilo_max_lo",
							"Block size (INCREMENT BY) of the sequence hilo_create_key() makes.",
							"A backend hands out this many ids per value it draws: 1000 keeps "
							"the slow path under 0.1% of calls and wastes at most 999 ids when a "
							"backend exits.  Existing keys keep theirs (ALTER SEQUENCE ... INCREMENT BY).",
							&idgen_hilo_max_lo,
							1000, 1, INT_MAX,
							PGC_USERSET, 0,
							nullptr, nullptr, nullptr);

	DefineCustomIntVariable("id_gen.worker_id",
							"Worker id (0..1023) written into every snowflake id; -1: automatic.",
							"Servers writing into one key space need distinct worker ids.  -1 (the default) "
							"takes the Citus group id on a Citus node, else 0.",
							&idgen_worker_id,
							-1, -1, 1023,
							PGC_SIGHUP, 0,
							nullptr, nullptr, nullptr);

	DefineCustomBoolVariable("id_gen.hilo_node_ranges",
							 "Hi/Lo keys draw from this node's range of ids (by id_gen.worker_id).",
							 "For primaries that write into one key space (logical replication both "
							 "ways): node n's own keys draw from n * 2^43 .. (n+1) * 2^43 - 1, below "
							 "2^53.  Off (the default), a server draws from 1 upward whatever its "
							 "worker id.",
							 &idgen_hilo_node_ranges,
							 false,
							 PGC_SIGHUP, 0,
							 nullptr, nullptr, nullptr);

	/*
	 * PostgreSQL allows PGC_POSTMASTER only while preloading.  Otherwise the
	 * generator still reads the epoch once, when its shared state is first
	 * created, so a later change takes effect only at the next restart.
	 */
	DefineCustomStringVariable("id_gen.snowflake_epoch",
							   "Epoch (UTC) from which snowflake ids count milliseconds.",
							   "Read once per server start.",
							   &idgen_snowflake_epoch,
							   IDGEN_DEFAULT_EPOCH,
							   process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
							   0,
							   check_snowflake_epoch, assign_snowflake_epoch, nullptr);

	/*
	 * 255: id % n takes every residue in turn for the powers of two n up to
	 * 256 (shard counts), at the cost of at most 255 of a millisecond's 4096
	 * snowflake ids once per burst (a saturated millisecond follows a full one
	 * and starts at 0).  jsid_next() takes at most 255, its sequence's size.
	 */
	DefineCustomIntVariable("id_gen.snowflake_start_spread",
							"Sequence values (0..n) a new millisecond of snowflake_next() and jsid_next() may start at.",
							"A new millisecond starts after the last id's sequence modulo n + 1, so that "
							"low-rate ids spread over id % m for the powers of two m up to n + 1 (modulo "
							"sharding).  0: every millisecond starts at 0.  jsid_next() "
							"uses at most 255.",
							&idgen_snowflake_start_spread,
							255, 0, 4095,
							PGC_SIGHUP, 0,
							nullptr, nullptr, nullptr);

	DefineCustomIntVariable("id_gen.launch_id",
							"Launch id (1..99999) written into every decimal_id(); 0 is for tests only.",
							"-1 (the default): automatic, the Citus group id + 1 on a Citus node; "
							"elsewhere unset, and decimal_id() then refuses to run.",
							&idgen_launch_id,
							-1, -1, 99999,
							PGC_SIGHUP, 0,
							nullptr, nullptr, nullptr);

	DefineCustomIntVariable("id_gen.decimal_generator_id",
							"This database's decimal_id() generator id, set by id_gen.decimal_id_claim().",
							"decimal_id() reads the value set for the database in pg_db_role_setting, as it "
							"reads other databases' values to refuse a generator id two databases would share.",
							&idgen_decimal_generator_id,
							-1, -1, 99999,
							PGC_SUSET, 0,
							check_decimal_generator_id, nullptr, nullptr);

	/* Kept by id_gen.decimal_id_claim() for the bootstrap superuser: no database can drop it. */
	DefineCustomIntVariable("id_gen.decimal_claims_to",
							"The largest decimal_id() generator id claimed on this server (set by id_gen.decimal_id_claim()).",
							"A role setting of the bootstrap superuser; new claims are above it.",
							&idgen_decimal_claims_to,
							-1, -1, 99999,
							PGC_SUSET, 0,
							check_decimal_claims_to, nullptr, nullptr);

	DefineCustomStringVariable("id_gen.node_tag",
							   "Node tag written at the end of every hilo_next_text() id (orders/54-A).",
							   "Distinct per server writing into one key space, so that two servers "
							   "that somehow hold the same range still never give the same text id.",
							   &idgen_node_tag,
							   "A",
							   PGC_SUSET, 0,
							   check_node_tag, nullptr, nullptr);

	/*
	 * The secret of id_encode()/id_decode() without a key argument.  Set by
	 * superusers only and readable by superusers only (and members of
	 * pg_read_all_settings): SHOW, current_setting() and pg_settings refuse
	 * or hide it for everybody else, while the functions, which read the
	 * variable directly, work for every user.
	 */
	DefineCustomStringVariable("id_gen.encode_key",
							   "Secret key of id_encode() and id_decode() when no key is passed.",
							   "Empty (the default): those forms raise an error.  Readable by superusers only.",
							   &idgen_encode_key,
							   "",
							   PGC_SUSET,
							   GUC_SUPERUSER_ONLY | GUC_NOT_IN_SAMPLE,
							   nullptr, nullptr, nullptr);

	/*
	 * Headroom thresholds, shared by the generators' WARNINGs and the view
	 * id_gen.headroom: a time-based generator warns when its time field ends
	 * within warning_days, a counted space (Hi/Lo range, decimal_id
	 * counter) when warning_percent of it is used; the view says "warning" and
	 * "critical" at the same points.
	 */
	DefineCustomIntVariable("id_gen.headroom_warning_days",
							"A time-based generator (snowflake, jsid) warns when its time field ends within this many days.",
							"id_gen.headroom shows status warning from the same point.",
							&idgen_headroom_warning_days,
							366, 1, 36500,
							PGC_SUSET, 0,
							nullptr, nullptr, nullptr);
	DefineCustomIntVariable("id_gen.headroom_critical_days",
							"id_gen.headroom shows status critical when a generator runs out within this many days.",
							nullptr,
							&idgen_headroom_critical_days,
							30, 0, 36500,
							PGC_SUSET, 0,
							nullptr, nullptr, nullptr);
	DefineCustomRealVariable("id_gen.headroom_warning_percent",
							 "A counted id space (Hi/Lo range, decimal_id counter) warns when this percentage of it is used.",
							 "id_gen.headroom shows status warning from the same point.",
							 &idgen_headroom_warning_percent,
							 90, 0, 100,
							 PGC_SUSET, 0,
							 nullptr, nullptr, nullptr);
	DefineCustomRealVariable("id_gen.headroom_critical_percent",
							 "id_gen.headroom shows status critical when this percentage of an id space is used.",
							 nullptr,
							 &idgen_headroom_critical_percent,
							 99, 0, 100,
							 PGC_SUSET, 0,
							 nullptr, nullptr, nullptr);

#ifdef IDGEN_TEST_HOOKS

	/*
	 * Test builds only: offsets added to the wall clock the generators read
	 * (a step of the system clock) and to the monotonic clock (time that
	 * really passed: set both to move ahead in time), so that tests can
	 * move them.  Reals, not ints: tests need offsets of decades (the end of
	 * the 41-bit time field), beyond INT_MAX milliseconds.  Production builds
	 * read the system clocks as they are.
	 */
	DefineCustomRealVariable("id_gen.test_clock_offset_ms",
							"Test builds only: offset added to the wall clock the generators read.",
							nullptr,
							&idgen_test_clock_offset_ms,
							0, -1e13, 1e13,
							PGC_SUSET, GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							nullptr, nullptr, nullptr);
	DefineCustomRealVariable("id_gen.test_monotonic_offset_ms",
							"Test builds only: offset added to the monotonic clock the generators read.",
							nullptr,
							&idgen_test_monotonic_offset_ms,
							0, -1e13, 1e13,
							PGC_SUSET, GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							nullptr, nullptr, nullptr);

	/*
	 * Test builds only (make temp-install): a pause point for isolation tests,
	 * see hilo_draw().  Not compiled into the library make install installs.
	 */
	DefineCustomIntVariable("id_gen.test_wait_before_draw_lock",
							"Test builds only: a Hi/Lo draw waits for pg_advisory_lock(n) between finding its key and locking its sequence.",
							"0 (the default) disables the pause.",
							&idgen_test_wait_before_draw_lock,
							0, 0, INT_MAX,
							PGC_SUSET, GUC_NOT_IN_SAMPLE,
							nullptr, nullptr, nullptr);
#endif

	MarkGUCPrefixReserved("id_gen");
}
