/*
 * guc.hpp: the id_gen.* configuration parameters.
 */
#pragma once

#include "pg/pg.hpp"

extern int	idgen_hilo_max_lo;
extern int	idgen_worker_id;
extern char *idgen_snowflake_epoch;
extern int64 idgen_snowflake_epoch_ms;	/* parsed idgen_snowflake_epoch */
extern int	idgen_max_clock_backward_ms;
extern int	idgen_launch_id;
extern char *idgen_encode_key;	/* id_encode()/id_decode() secret; "": unset */
extern char *idgen_node_tag;	/* hilo_next_text()'s tag */
#ifdef IDGEN_TEST_HOOKS
extern double idgen_test_clock_offset_ms;	/* added to the generators' clock, ms */
extern int	idgen_test_wait_before_draw_flush;	/* advisory lock key; 0: off */
extern int	idgen_test_wait_before_run_jump;	/* advisory lock key; 0: off */
#endif

extern void idgen_define_gucs(void);
