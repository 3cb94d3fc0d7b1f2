/*
 * guc.hpp: the id_gen.* configuration parameters.
 */
#pragma once

#include "pg/pg.hpp"

extern int	idgen_hilo_max_lo;
extern int	idgen_worker_id;
extern bool idgen_hilo_node_ranges;	/* Hi/Lo node ranges outside Citus */
extern char *idgen_snowflake_epoch;
extern int64 idgen_snowflake_epoch_ms;	/* parsed idgen_snowflake_epoch */
extern int	idgen_snowflake_start_spread;	/* snowflake/jsid start of a new ms */
extern int	idgen_launch_id;
extern int	idgen_decimal_generator_id;	/* read from the catalog: decimal_claim.cpp */
extern int	idgen_decimal_claims_to;	/* likewise */
extern char *idgen_encode_key;	/* id_encode()/id_decode() secret; "": unset */
extern char *idgen_node_tag;	/* hilo_next_text()'s tag */
/*
 * Headroom thresholds: the generators' exhaustion WARNINGs and the view
 * id_gen.headroom (sql/id_gen--2.0.0.sql, id_gen.headroom_thresholds()) read
 * the same four settings, so that both turn at the same point.
 */
extern int	idgen_headroom_warning_days;
extern int	idgen_headroom_critical_days;
extern double idgen_headroom_warning_percent;
extern double idgen_headroom_critical_percent;
#ifdef IDGEN_TEST_HOOKS
extern double idgen_test_clock_offset_ms;	/* added to the generators' wall clock, ms */
extern double idgen_test_monotonic_offset_ms;	/* added to their monotonic clock, ms */
extern int	idgen_test_wait_before_draw_lock;	/* advisory lock key; 0: off */
#endif

extern void idgen_define_gucs(void);
