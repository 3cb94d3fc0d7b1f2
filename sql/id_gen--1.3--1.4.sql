/* sql/id_gen--1.3--1.4.sql: state where PostgreSQL keeps it */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

-- 1.4 keeps a key where PostgreSQL keeps a serial's (id_gen--1.4.sql): a
-- sequence OWNED BY the column and the formula written in the column's
-- default.  The functions of that design first; then every key of
-- id_gen.hilo_key and id_gen.hilo_orm_key is converted, and the objects of
-- the old design (key tables, counter, drop triggers) go.
CREATE FUNCTION hilo_next(tbl regclass, seq regclass, strategy text, max_lo integer,
                          adaptive boolean, hi_table text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_next_key'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next(regclass, regclass, text, integer, boolean, text) IS
    'a Hi/Lo key as its table''s default states it (written by the table owner''s DDL, dumped with the table): next id from the sequence under the formula; needs INSERT on the table';
COMMENT ON FUNCTION hilo_next(regclass) IS
    'next id of the table''s Hi/Lo key; use as DEFAULT hilo_next(''t''), which the table owner''s DDL turns into the key; needs INSERT on the table';

CREATE FUNCTION hilo_create_key(tbl regclass, col name DEFAULT NULL, max_lo integer DEFAULT NULL)
    RETURNS regclass
    AS 'MODULE_PATHNAME', 'hilo_create_key'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_create_key(regclass, name, integer) IS
    'makes the table''s Hi/Lo key as its DDL would, where event triggers do not run: a sequence owned by the column, above its ids, and the column''s default; returns the sequence; table owner only';

CREATE FUNCTION id_gen.hilo_on_ddl() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'hilo_on_ddl'
    LANGUAGE C;
REVOKE ALL ON FUNCTION id_gen.hilo_on_ddl() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.hilo_on_ddl() IS
    'makes the Hi/Lo key of a table whose DDL sets a column''s DEFAULT hilo_next(''that table'')';

COMMENT ON FUNCTION hilo_set_max_lo(regclass, integer) IS
    'changes the block size of the table''s Hi/Lo key (its default), moving its sequence above every id already issued; ROLLBACK restores the size, never the sequence; table owner only';
COMMENT ON FUNCTION hilo_bind(regclass, regclass, text, integer) IS
    'makes the table''s Hi/Lo key draw from an existing sequence with an ORM''s formula: classic, legacy, pooled_lo, pooled or pooled_hibernate3, moving it above every id already issued; table owner only';
COMMENT ON FUNCTION hilo_set_floor(regclass, bigint) IS
    'moves the table''s Hi/Lo key forward: its next blocks start above every id in the key''s column and at or above next_id; returns the next block''s first id; not undone by ROLLBACK; table owner only';
COMMENT ON FUNCTION hilo_return(regclass, bigint, bigint) IS
    'takes nothing back and returns false (a key never moves back); kept for applications that call it: never use those ids afterwards';
COMMENT ON FUNCTION hilo_set_adaptive(regclass, boolean) IS
    'true: each backend draws runs of blocks whose length adapts to its pace (32 ids to about a million); false: one block of max_lo ids per draw; a change of the table''s default; table owner only';
COMMENT ON FUNCTION hilo_bind_table(regclass, regclass, name, integer, text, name, text) IS
    'makes the table''s own Hi/Lo key serve an ORM''s hi table row (legacy: hi*(max_lo+1), as Hibernate and NHibernate): a trigger parks the key''s next value in the row; table owner, with TRIGGER and UPDATE on the hi table';

CREATE FUNCTION id_gen.hilo_key_list(OUT table_name regclass, OUT column_name name, OUT sequence regclass,
                                     OUT strategy text, OUT max_lo integer, OUT adaptive boolean,
                                     OUT hi_table text, OUT own_sequence boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'hilo_key_list'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.hilo_key_list() IS
    'every Hi/Lo key of this database, as its table''s default states it';

-- On a Citus worker a key's own sequence counts in Citus' window for the
-- node (hilo/citus.cpp): the last id reserved, from the node's range.
CREATE FUNCTION id_gen.hilo_key_reserved_to(seq regclass, own boolean, strategy text, last_hi bigint, size bigint)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_key_reserved_to'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.hilo_key_reserved_to(regclass, boolean, text, bigint, bigint) IS
    'last id of the block a Hi/Lo key''s sequence value reserves on this node (capped at 9223372036854775807)';

-- The view keeps its columns (other roles' views may read them) and gains
-- three.
CREATE OR REPLACE VIEW id_gen.hilo_keys AS
SELECT k.table_name,
       k.strategy,
       id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement) AS max_lo,
       k.sequence,
       k.own_sequence,
       v.last_hi,
       id_gen.hilo_key_reserved_to(k.sequence, k.own_sequence, k.strategy, v.last_hi,
                                   id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement)) AS reserved_to,
       k.column_name,
       k.adaptive,
       k.hi_table
  FROM id_gen.hilo_key_list() k
  JOIN pg_catalog.pg_sequence s ON s.seqrelid = k.sequence
  CROSS JOIN LATERAL (
       SELECT CASE WHEN pg_catalog.has_sequence_privilege(k.sequence, 'SELECT')
                   THEN pg_catalog.pg_sequence_last_value(k.sequence) END AS last_hi) v;

CREATE FUNCTION hilo_next_text(tbl regclass, id bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'hilo_text_id'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION hilo_next_text(regclass, bigint) IS
    'the id written as <table>/<n>-<node tag> (id_gen.node_tag); DEFAULT hilo_next_text(''t'') becomes hilo_next_text(''t'', <t''s Hi/Lo key>)';

CREATE FUNCTION hilo_hi_row() RETURNS trigger
    AS 'MODULE_PATHNAME', 'hilo_hi_row'
    LANGUAGE C;
COMMENT ON FUNCTION hilo_hi_row() IS
    'trigger of an ORM''s hi table bound by hilo_bind_table(): parks the next value of the key''s sequence in the hi row';

-- The conversion, by helpers that run as this script's role (the extension
-- owner, a superuser) and are dropped at its end.  Nothing is dropped that
-- other roles' objects could hold on to: a key's sequence is moved (ALTER
-- SEQUENCE keeps its OID and its position, and views on it follow), and a
-- table of the old design that another role's view reads is detached and
-- renamed instead of dropped.
DROP EVENT TRIGGER id_gen_hilo_on_drop;
DROP EVENT TRIGGER id_gen_hilo_orm_on_drop;
DROP FUNCTION id_gen.hilo_on_drop();
DROP FUNCTION id_gen.hilo_orm_on_drop();

-- A name for relid's new sequence as ChooseRelationName() picks serial's,
-- <table>_<column>_seq, then _seq1, _seq2 ... while a relation of the
-- table's schema (or of id_gen, where an own sequence is renamed before it
-- moves) has it.
CREATE FUNCTION id_gen.hilo_update_name(relid oid, col name) RETURNS name
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    nsp oid := (SELECT relnamespace FROM pg_class WHERE oid = relid);
    n1 text;
    n2 text;
    label text;
    candidate text;
    pass int := 0;
BEGIN
    LOOP
        label := CASE WHEN pass = 0 THEN 'seq' ELSE 'seq' || pass END;
        -- makeObjectName(): the longer part loses bytes first, whole characters.
        n1 := (SELECT relname FROM pg_class WHERE oid = relid);
        n2 := col;
        WHILE octet_length(n1) + octet_length(n2) > 63 - 2 - octet_length(label) LOOP
            IF octet_length(n1) > octet_length(n2) THEN
                n1 := left(n1, -1);
            ELSE
                n2 := left(n2, -1);
            END IF;
        END LOOP;
        candidate := n1 || '_' || n2 || '_' || label;
        IF NOT EXISTS (SELECT 1 FROM pg_class
                        WHERE relname = candidate
                          AND relnamespace IN (nsp, 'id_gen'::regnamespace)) THEN
            RETURN candidate;
        END IF;
        pass := pass + 1;
    END LOOP;
END
$$;

-- The columns of relid whose default is hilo_next('relid') or
-- hilo_next_text('relid') (the short forms, the only ones before 1.4),
-- lowest first.
CREATE FUNCTION id_gen.hilo_update_columns(relid oid) RETURNS name[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce(array_agg(a.attname ORDER BY a.attnum), '{}')
  FROM pg_attrdef d
  JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum AND NOT a.attisdropped
 WHERE d.adrelid = relid
   AND pg_get_expr(d.adbin, d.adrelid) IN
       (format('%s.hilo_next(%L::regclass)', '@extschema@', relid::regclass::text),
        format('%s.hilo_next_text(%L::regclass)', '@extschema@', relid::regclass::text))
$$;

-- Writes key into the defaults of cols, as hilo_key_expression() and
-- hilo_write_defaults() word it (a text id's default wraps the key).
CREATE FUNCTION id_gen.hilo_update_default(relid oid, cols name[], seq oid, strategy text,
                                           max_lo integer, adaptive boolean, hi_table text)
    RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    col name;
    expr text := format('%s.hilo_next(%L::pg_catalog.regclass, %L::pg_catalog.regclass, %L::pg_catalog.text, '
                        '%s::pg_catalog.int4, %s, %s::pg_catalog.text)',
                        '@extschema@', relid::regclass::text, seq::regclass::text, strategy,
                        coalesce(max_lo::text, 'NULL'), CASE WHEN adaptive THEN 'true' ELSE 'false' END,
                        coalesce(quote_literal(hi_table), 'NULL'));
BEGIN
    FOREACH col IN ARRAY cols LOOP
        IF (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a
               ON a.attrelid = d.adrelid AND a.attnum = d.adnum
             WHERE d.adrelid = relid AND a.attname = col) =
           format('%s.hilo_next_text(%L::regclass)', '@extschema@', relid::regclass::text) THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s.hilo_next_text(%L::pg_catalog.regclass, %s)',
                           relid::regclass, col, '@extschema@', relid::regclass::text, expr);
        ELSE
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s', relid::regclass, col, expr);
        END IF;
    END LOOP;
END
$$;

-- Makes seq the sequence of relid's own key on column col (NULL: no column
-- states the key; the sequence is kept beside the table), where a new key's
-- would be: in the table's schema, named as serial's, owned by the table's
-- owner, OWNED BY the column, MINVALUE 0, NO CYCLE, nothing granted.  Its
-- value is kept.  Returns the sequence.
CREATE FUNCTION id_gen.hilo_update_place(seq oid, relid oid, col name) RETURNS oid
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    nsp oid := (SELECT relnamespace FROM pg_class WHERE oid = relid);
    owner name := (SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = relid);
    target name := id_gen.hilo_update_name(relid, coalesce(col, 'hilo'));
    s pg_sequence;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_depend WHERE classid = 'pg_class'::regclass AND objid = seq
                  AND refclassid = 'pg_extension'::regclass AND deptype = 'e') THEN
        EXECUTE format('ALTER EXTENSION id_gen DROP SEQUENCE %s', seq::regclass);
    END IF;
    EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM PUBLIC', seq::regclass);
    EXECUTE format('ALTER SEQUENCE %s OWNER TO %I', seq::regclass, owner);
    IF (SELECT relname FROM pg_class WHERE oid = seq) <> target THEN
        EXECUTE format('ALTER SEQUENCE %s RENAME TO %I', seq::regclass, target);
    END IF;
    IF (SELECT relnamespace FROM pg_class WHERE oid = seq) <> nsp THEN
        EXECUTE format('ALTER SEQUENCE %s SET SCHEMA %I', seq::regclass,
                       (SELECT nspname FROM pg_namespace WHERE oid = nsp));
    END IF;
    SELECT * INTO s FROM pg_sequence WHERE seqrelid = seq;
    IF s.seqmin > 0 THEN
        EXECUTE format('ALTER SEQUENCE %s MINVALUE 0', seq::regclass);
    END IF;
    IF s.seqcycle THEN
        EXECUTE format('ALTER SEQUENCE %s NO CYCLE', seq::regclass);
    END IF;
    IF col IS NOT NULL THEN
        EXECUTE format('ALTER SEQUENCE %s OWNED BY %s.%I', seq::regclass, relid::regclass, col);
    END IF;
    RETURN seq;
END
$$;

-- A new own key (classic) for relid on cols: a sequence placed as above,
-- the defaults, then moved above the table's rows in this node's range
-- (hilo_set_floor).  Made as the extension owner: the table's owner may
-- lack CREATE on its schema.
CREATE FUNCTION id_gen.hilo_update_new_key(relid oid, cols name[], max_lo integer, adaptive boolean)
    RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seqname text := 'hilo_update_' || relid;
    seq oid;
BEGIN
    EXECUTE format('CREATE %sSEQUENCE id_gen.%I AS pg_catalog.int8 MINVALUE 0 START 0 NO CYCLE',
                   CASE WHEN (SELECT relpersistence FROM pg_class WHERE oid = relid) = 'u'
                        THEN 'UNLOGGED ' ELSE '' END, seqname);
    seq := format('id_gen.%I', seqname)::regclass;
    PERFORM id_gen.hilo_update_place(seq, relid, cols[1]);
    PERFORM id_gen.hilo_update_default(relid, cols, seq, 'classic', max_lo, adaptive, NULL);
    PERFORM @extschema@.hilo_set_floor(relid::regclass);
END
$$;

CREATE FUNCTION id_gen.hilo_update_keys() RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k record;
    cols name[];
    hi oid;
BEGIN
    -- Keys of id_gen.hilo_key.  A key whose sequence is gone was made again
    -- above the table's ids at its next use: so it is now.
    FOR k IN
        SELECT c.oid AS relid, s.oid AS seq, h.strategy, h.max_lo, h.own_seq, h.adaptive
          FROM id_gen.hilo_key h
          JOIN pg_class c ON c.oid = h.relid::oid
          LEFT JOIN pg_class s ON s.oid = to_regclass(h.seq) AND s.relkind = 'S'
         ORDER BY c.oid
    LOOP
        cols := id_gen.hilo_update_columns(k.relid);
        IF k.seq IS NULL THEN
            IF cardinality(cols) > 0 THEN
                PERFORM id_gen.hilo_update_new_key(k.relid, cols, k.max_lo, k.adaptive);
            END IF;
        ELSIF k.own_seq THEN
            PERFORM id_gen.hilo_update_place(k.seq, k.relid, cols[1]);
            IF cardinality(cols) = 0 THEN
                RAISE WARNING 'no column of table % defaults to hilo_next(''%''): the sequence of its Hi/Lo key is kept as %, at %',
                        k.relid::regclass, k.relid::regclass, k.seq::regclass, pg_sequence_last_value(k.seq::regclass)
                    USING DETAIL = format('In 1.4 a column''s default states a key.  The key handed out ids up to the block of that value (%s, max_lo %s).',
                                          k.strategy, k.max_lo),
                          HINT = format('Give a column DEFAULT hilo_next(%L), move the new key above those ids with hilo_set_floor(%L, <next id>), then drop %s.',
                                        k.relid::regclass::text, k.relid::regclass::text, k.seq::regclass);
                CONTINUE;
            END IF;
            PERFORM id_gen.hilo_update_default(k.relid, cols, k.seq, k.strategy,
                                               CASE WHEN k.strategy IN ('pooled_lo', 'pooled', 'pooled_hibernate3')
                                                    THEN NULL ELSE k.max_lo END,
                                               k.adaptive, NULL);
            -- Rows with explicit ids above the key, which 1.3 checked at each draw.
            PERFORM @extschema@.hilo_set_floor(k.relid::regclass);
        ELSIF cardinality(cols) > 0 THEN
            PERFORM id_gen.hilo_update_default(k.relid, cols, k.seq, k.strategy,
                                               CASE WHEN k.strategy IN ('pooled_lo', 'pooled', 'pooled_hibernate3')
                                                    THEN NULL ELSE k.max_lo END,
                                               k.adaptive, NULL);
        END IF;
    END LOOP;

    -- Keys served by an ORM's hi table row: an own key, bound to the row by
    -- hilo_bind_table() (above every hi the ORM read and the table's rows,
    -- the row parked, the trigger on the hi table).
    FOR k IN
        SELECT c.oid AS relid, h.hi_table, h.hi_column, h.key_column, h.key_value, h.strategy, h.max_lo
          FROM id_gen.hilo_orm_key h
          JOIN pg_class c ON c.oid = h.relid::oid
         ORDER BY c.oid
    LOOP
        cols := id_gen.hilo_update_columns(k.relid);
        hi := to_regclass(k.hi_table);
        IF cardinality(cols) = 0 THEN
            CONTINUE;			-- nothing drew from it but the ORM, which keeps its row
        END IF;
        IF hi IS NULL THEN
            PERFORM id_gen.hilo_update_new_key(k.relid, cols, k.max_lo, false);
            RAISE WARNING 'the ORM hi table % of table % does not exist: its Hi/Lo key now draws from a sequence of its own',
                    k.hi_table, k.relid::regclass
                USING HINT = format('When the hi table is back, bind it again: SELECT hilo_bind_table(%L, ...).',
                                    k.relid::regclass::text);
            CONTINUE;
        END IF;
        -- The own key first, then the binding, as its owner would.
        PERFORM id_gen.hilo_update_new_key(k.relid, cols, k.max_lo, false);
        PERFORM @extschema@.hilo_bind_table(k.relid::regclass, hi::regclass, k.hi_column, k.max_lo,
                                            k.strategy, k.key_column, k.key_value);
    END LOOP;

    -- Tables whose default asks for a key that no draw made yet: made now,
    -- as 1.4's CREATE TABLE would have.
    FOR k IN
        SELECT DISTINCT c.oid AS relid
          FROM pg_attrdef d
          JOIN pg_class c ON c.oid = d.adrelid
         WHERE c.relkind IN ('r', 'p', 'f') AND c.relpersistence <> 't'
           AND cardinality(id_gen.hilo_update_columns(c.oid)) > 0
           AND NOT EXISTS (SELECT 1 FROM id_gen.hilo_key_list() l WHERE l.table_name = c.oid)
         ORDER BY 1
    LOOP
        PERFORM id_gen.hilo_update_new_key(k.relid, id_gen.hilo_update_columns(k.relid),
                                           coalesce(current_setting('id_gen.hilo_max_lo', true)::integer, 1000),
                                           coalesce(current_setting('id_gen.hilo_adaptive', true), 'on') = 'on');
    END LOOP;
END
$$;

-- Drops a relation of the old design, or, if another role's object depends
-- on it (a view needs no privilege on what it reads), leaves it to them
-- outside the extension, renamed, with a WARNING (an extension script shows
-- no NOTICE).
CREATE FUNCTION id_gen.hilo_update_retire(rel regclass, kind text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    old_name name := (SELECT relname FROM pg_class WHERE oid = rel);
    new_name text := old_name || '_before_1_4';
    pass int := 0;
BEGIN
    -- Out of the extension first, which takes it out of the tables pg_dump
    -- dumps the data of (DROP alone would leave its OID there).
    EXECUTE format('ALTER EXTENSION id_gen DROP %s %s', kind, rel);
    BEGIN
        EXECUTE format('DROP %s %s', kind, rel);
    EXCEPTION WHEN dependent_objects_still_exist THEN
        WHILE EXISTS (SELECT 1 FROM pg_class WHERE relname = new_name AND relnamespace = 'id_gen'::regnamespace) LOOP
            pass := pass + 1;
            new_name := old_name || '_before_1_4_' || pass;
        END LOOP;
        EXECUTE format('ALTER %s %s RENAME TO %I', kind, rel, new_name);
        RAISE WARNING '% id_gen.% is no longer used: other objects depend on it, so it is kept as id_gen.%, outside the extension',
                lower(kind), old_name, new_name
            USING DETAIL = coalesce((SELECT 'Depending on it: ' || string_agg(DISTINCT pg_describe_object(d.classid, d.objid, d.objsubid), ', ')
                                       FROM pg_depend d
                                      WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = rel
                                        AND d.deptype = 'n'
                                        AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                                                         WHERE d.classid = 'pg_constraint'::regclass
                                                           AND c.oid = d.objid AND c.conrelid = rel)), ''),
                  HINT = format('Drop it when they no longer need it: DROP %s id_gen.%I CASCADE.', kind, new_name);
    END;
END
$$;

SELECT id_gen.hilo_update_keys();
SELECT id_gen.hilo_update_retire('id_gen.hilo_key', 'TABLE');
SELECT id_gen.hilo_update_retire('id_gen.hilo_orm_key', 'TABLE');
SELECT id_gen.hilo_update_retire('id_gen.hilo_seq_counter', 'SEQUENCE');
DROP FUNCTION id_gen.hilo_update_keys();
DROP FUNCTION id_gen.hilo_update_retire(regclass, text);
DROP FUNCTION id_gen.hilo_update_new_key(oid, name[], integer, boolean);
DROP FUNCTION id_gen.hilo_update_place(oid, oid, name);
DROP FUNCTION id_gen.hilo_update_default(oid, name[], oid, text, integer, boolean, text);
DROP FUNCTION id_gen.hilo_update_columns(oid);
DROP FUNCTION id_gen.hilo_update_name(oid, name);

-- From now on the owner's DDL makes keys (and its hand-written changes move them).
CREATE EVENT TRIGGER id_gen_hilo_keys ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE')
    EXECUTE FUNCTION id_gen.hilo_on_ddl();
COMMENT ON EVENT TRIGGER id_gen_hilo_keys IS
    'turns DEFAULT hilo_next(''t'') of table t into t''s Hi/Lo key, in its owner''s DDL';
CREATE FUNCTION id_gen.hilo_before_ddl() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'hilo_before_ddl'
    LANGUAGE C;
REVOKE ALL ON FUNCTION id_gen.hilo_before_ddl() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.hilo_before_ddl() IS
    'remembers the Hi/Lo key an ALTER TABLE ... SET DEFAULT replaces, so that a formula written by hand moves the key''s sequence as hilo_set_max_lo() would';
CREATE EVENT TRIGGER id_gen_hilo_key_changes ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE')
    EXECUTE FUNCTION id_gen.hilo_before_ddl();
COMMENT ON EVENT TRIGGER id_gen_hilo_key_changes IS
    'with id_gen_hilo_keys: a Hi/Lo key''s default rewritten by hand never gives its ids again';

-- ---------------------------------------------------------------------------
-- Clock floor, epoch, decimal_id
-- ---------------------------------------------------------------------------

-- Snowflake ids and jsids of this database counted from an epoch earlier
-- than the server's (a database restored from another server) reach up to
-- this time (Unix ms, converted into the server's epoch): snowflake_next()
-- and jsid_next() refuse in this database alone until the clock passes it.
-- 0: none.  Set by the extension when it reads such a floor.
CREATE SEQUENCE id_gen.snowflake_floor MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.snowflake_floor', '');
REVOKE ALL ON SEQUENCE id_gen.snowflake_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.snowflake_floor IS
    'time (Unix ms, in the server''s epoch) before which snowflake and jsid ids of this database, counted from an earlier epoch, would not be exceeded';

-- The worker id whose snowflake ids and jsids id_gen.clock_floor covers
-- (-1: any).  A floor read further ahead of the clock than a reservation
-- runs (the clock ran ahead, then a restart) refuses that worker id alone
-- until the clock passes it; another worker id, and timeuuid_next() above
-- the floor, go on.  Set by the extension only.
CREATE SEQUENCE id_gen.clock_worker MINVALUE -1 MAXVALUE 1023 START -1 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.clock_worker', '');
REVOKE ALL ON SEQUENCE id_gen.clock_worker FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.clock_worker IS
    'worker id (-1: any) of the snowflake and jsid ids up to id_gen.clock_floor in this database';

-- The clock: the persisted floor (snowflake_state().clock_floor) runs at most
-- one step ahead of the clock; further ahead, the clock went back.  Beyond the
-- step plus id_gen.max_clock_backward_ms snowflake_next() and jsid_next()
-- refuse until the clock passes the floor; after a restart only under the
-- worker id kept with it (id_gen.clock_worker), and timeuuid_next() continues
-- above it.  The backward steps counted are snowflake_next()'s (jsid_state()
-- has jsid's).
-- The WARNINGs of snowflake_state() are the snowflake row's to give.
CREATE OR REPLACE FUNCTION id_gen.headroom_clock() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = error
    AS $$
SELECT 'clock', 'this server',
       NULL::double precision, NULL::text, NULL::double precision,
       CASE WHEN c.lead_ms > t.clock_floor_step_ms + t.max_clock_backward_ms THEN 'critical'
            WHEN c.lead_ms > t.clock_floor_step_ms THEN 'warning'
            ELSE 'ok' END,
       CASE WHEN c.lead_ms IS NULL
            THEN 'the clock floor is not loaded yet (no time-based id generated in this database since the start)'
            WHEN c.lead_ms > t.clock_floor_step_ms + t.max_clock_backward_ms
            THEN format('the clock is %s ms behind the persisted clock floor, more than the %s ms step plus id_gen.max_clock_backward_ms (%s ms): '
                        'snowflake_next() and jsid_next() refuse until it passes the floor (after a restart only under the worker id '
                        'that issued ids up to it: another id_gen.worker_id is the way out), timeuuid_next() continues above it',
                        c.lead_ms - t.clock_floor_step_ms,
                        t.clock_floor_step_ms, t.max_clock_backward_ms)
            WHEN c.lead_ms > t.clock_floor_step_ms
            THEN format('the clock went back: the floor is %s ms ahead of it (at most %s ms when the clock is right)',
                        c.lead_ms, t.clock_floor_step_ms)
            ELSE format('the clock floor is %s ms ahead of the clock (at most %s ms)', c.lead_ms, t.clock_floor_step_ms)
       END
       || CASE WHEN s.clock_backward_errors > 0
               THEN format('; %s calls refused since the start because the clock went back', s.clock_backward_errors)
               ELSE '' END
       || CASE WHEN lb.at IS NOT NULL
               THEN format('; last backward step seen %s', to_char(lb.at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'))
               ELSE '' END,
       -- (the counts since the start only inform: rate() of the exporter's
       -- metric says whether it happens now)
       jsonb_build_object('clock_floor', s.clock_floor, 'clock_floor_lead_ms', c.lead_ms,
                          'clock_backward_events', s.clock_backward_events,
                          'clock_backward_errors', s.clock_backward_errors,
                          'clock_floor_advances', s.clock_floor_advances,
                          'last_clock_backward', lb.at,
                          'max_clock_backward_ms', t.max_clock_backward_ms, 'since', s.started)
  FROM @extschema@.snowflake_state() s, id_gen.headroom_thresholds() t,
       LATERAL (SELECT id_gen.clock_last_backward() AS at) lb,
       LATERAL (SELECT round((extract(epoch FROM s.clock_floor) - extract(epoch FROM s.time_exhausted_at)
                                   + extract(epoch FROM s.time_left)) * 1000)::bigint AS lead_ms) c
$$;
COMMENT ON FUNCTION id_gen.headroom_clock() IS
    'the clock: how far the persisted clock floor runs ahead of it, and the backward steps seen since the start';

-- decimal_id(): the generator id is claimed (see id_gen--1.4.sql); the
-- update claims the one the counter ran with under 1.3 when no other
-- database has it, else a new one.
CREATE SEQUENCE id_gen.decimal_claim MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.decimal_claim', '');
REVOKE ALL ON SEQUENCE id_gen.decimal_claim FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.decimal_claim IS
    'decimal_id() generator id claimed by this database: the claiming database''s OID * 100000 + the generator id';
CREATE FUNCTION id_gen.decimal_id_claim(new_generator boolean DEFAULT false, generator_id integer DEFAULT NULL)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_claim'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.decimal_id_claim(boolean, integer) FROM PUBLIC;
COMMENT ON FUNCTION id_gen.decimal_id_claim(boolean, integer) IS
    'superuser: claim a decimal_id() generator id for this database (kept if valid, unless new_generator), one no other database has and this one never had';
SELECT id_gen.decimal_id_claim();
-- Granted like a sequence's USAGE: to the roles that write.
REVOKE EXECUTE ON FUNCTION decimal_id() FROM PUBLIC;

-- Snowflake and jsid start spread (issue 22): the headroom rows show what
-- id_gen.snowflake_start_spread leaves of a millisecond.
CREATE FUNCTION id_gen.headroom_ms_capacity(generator text, OUT start_spread integer,
                                            OUT fewest_per_ms integer, OUT saturated_per_ms integer)
    AS 'MODULE_PATHNAME', 'headroom_ms_capacity'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_ms_capacity(text) IS
    'what id_gen.snowflake_start_spread leaves of a millisecond of snowflake or jsid ids: the spread applied, the fewest ids a millisecond holds, the ids per millisecond at saturation';

CREATE OR REPLACE FUNCTION id_gen.headroom_snowflake() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.generator, h.object, h.used_fraction, h.runs_out, h.seconds_left, h.status, h.reason,
       h.detail || jsonb_build_object('start_spread', c.start_spread, 'ids_per_ms_fewest', c.fewest_per_ms,
                                      'ids_per_ms_saturated', c.saturated_per_ms)
  FROM @extschema@.snowflake_state() s,
       id_gen.headroom_time_field('snowflake', 41, s.epoch, s.time_exhausted_at, s.time_left) h,
       id_gen.headroom_ms_capacity('snowflake') c
$$;
COMMENT ON FUNCTION id_gen.headroom_snowflake() IS
    'headroom of snowflake_next(): its time field (snowflake_state()), and what id_gen.snowflake_start_spread leaves of a millisecond';

CREATE OR REPLACE FUNCTION id_gen.headroom_jsid() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.generator, h.object, h.used_fraction, h.runs_out, h.seconds_left, h.status, h.reason,
       h.detail || jsonb_build_object('start_spread', c.start_spread, 'ids_per_ms_fewest', c.fewest_per_ms,
                                      'ids_per_ms_saturated', c.saturated_per_ms)
  FROM @extschema@.jsid_state() s,
       id_gen.headroom_time_field('jsid', 41, s.epoch, s.time_exhausted_at, s.time_left) h,
       id_gen.headroom_ms_capacity('jsid') c
$$;
COMMENT ON FUNCTION id_gen.headroom_jsid() IS
    'headroom of jsid_next(): its time field (jsid_state()), and what id_gen.snowflake_start_spread leaves of a millisecond';

-- ---------------------------------------------------------------------------
-- timeuuid
-- ---------------------------------------------------------------------------

-- The (uuid, uuid) members of timeuuid's btree and hash families: two uuids
-- compared as timeuuids (time order, both checked), which btree and hash look
-- up for the uuid side of the cross-type members (= ANY (uuid[]) through an
-- index, NOT IN (SELECT uuid), merge joins).  Names of their own: uuid's =,
-- < ... order by bytes, and uuid's = in these families would let plain uuid
-- hash joins pick timeuuid's checked hash function.
CREATE FUNCTION uuid_time_eq(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_ne(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_lt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_le(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_gt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_ge(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_cmp(uuid, uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'uuid_time_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_time_eq(uuid, uuid) IS 'implementation of ~=~: two uuids equal as timeuuids';
COMMENT ON FUNCTION uuid_time_ne(uuid, uuid) IS 'implementation of ~<>~: two uuids not equal as timeuuids';
COMMENT ON FUNCTION uuid_time_lt(uuid, uuid) IS 'implementation of ~<~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_le(uuid, uuid) IS 'implementation of ~<=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_gt(uuid, uuid) IS 'implementation of ~>~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_ge(uuid, uuid) IS 'implementation of ~>=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_cmp(uuid, uuid) IS 'btree comparison of two uuids as timeuuids, in time order';

CREATE OPERATOR ~=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_eq,
    COMMUTATOR = ~=~, NEGATOR = ~<>~, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR ~<>~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_ne,
    COMMUTATOR = ~<>~, NEGATOR = ~=~, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR ~<~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_lt,
    COMMUTATOR = ~>~, NEGATOR = ~>=~, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR ~<=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_le,
    COMMUTATOR = ~>=~, NEGATOR = ~>~, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR ~>~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_gt,
    COMMUTATOR = ~<~, NEGATOR = ~<=~, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR ~>=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_ge,
    COMMUTATOR = ~<=~, NEGATOR = ~<~, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
COMMENT ON OPERATOR ~=~ (uuid, uuid) IS 'equal as timeuuids';
COMMENT ON OPERATOR ~<>~ (uuid, uuid) IS 'not equal as timeuuids';
COMMENT ON OPERATOR ~<~ (uuid, uuid) IS 'earlier than, as timeuuids';
COMMENT ON OPERATOR ~<=~ (uuid, uuid) IS 'earlier than or equal, as timeuuids';
COMMENT ON OPERATOR ~>~ (uuid, uuid) IS 'later than, as timeuuids';
COMMENT ON OPERATOR ~>=~ (uuid, uuid) IS 'later than or equal, as timeuuids';

ALTER OPERATOR FAMILY timeuuid_ops USING btree ADD
    OPERATOR 1 ~<~ (uuid, uuid),
    OPERATOR 2 ~<=~ (uuid, uuid),
    OPERATOR 3 ~=~ (uuid, uuid),
    OPERATOR 4 ~>=~ (uuid, uuid),
    OPERATOR 5 ~>~ (uuid, uuid),
    FUNCTION 1 (uuid, uuid) uuid_time_cmp(uuid, uuid);

ALTER OPERATOR FAMILY timeuuid_hash_ops USING hash ADD
    OPERATOR 1 ~=~ (uuid, uuid);

-- With the uuid side's ordering in the family, the cross-type = can merge
-- (1.3 left it out: a merge join would have sorted the uuid side in byte
-- order).  ALTER OPERATOR ... SET (MERGES) exists from 17 on; before, only
-- pg_operator itself can be changed (dropping and recreating the operators
-- would fail on, or drop, the views and indexes that use them).
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 170000 THEN
        EXECUTE 'ALTER OPERATOR = (timeuuid, uuid) SET (MERGES)';
        EXECUTE 'ALTER OPERATOR = (uuid, timeuuid) SET (MERGES)';
    ELSE
        UPDATE pg_catalog.pg_operator SET oprcanmerge = true
         WHERE oid IN ('=(timeuuid, uuid)'::pg_catalog.regoperator,
                       '=(uuid, timeuuid)'::pg_catalog.regoperator);
    END IF;
END
$$;

-- ---------------------------------------------------------------------------
-- Publications of sequences (PostgreSQL 19)
-- ---------------------------------------------------------------------------

-- From 19 on, a publication FOR ALL SEQUENCES copies the value of every
-- sequence of the database to its subscribers (at CREATE SUBSCRIPTION and at
-- each ALTER SUBSCRIPTION ... REFRESH SEQUENCES), lower values too.  id_gen
-- keeps its state in sequences: Hi/Lo keys, the clock floor and epoch,
-- decimal_id's counter.  A subscriber that writes would then hand out again
-- ids it has handed out, or refuse for another node's clock.  19 has no
-- per-sequence list and no exception for sequences, so a database with
-- id_gen publishes no sequences: the ids themselves travel with the tables.
CREATE FUNCTION id_gen.check_no_sequence_publication() RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    pub name;
BEGIN
    IF current_setting('server_version_num')::int < 190000 THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT pubname FROM pg_catalog.pg_publication WHERE puballsequences LIMIT 1' INTO pub;
    IF pub IS NOT NULL THEN
        RAISE EXCEPTION 'publication "%" would publish the sequences id_gen keeps its state in', pub
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Hi/Lo keys, the clock floor and decimal_id''s counter are sequences; a subscriber that writes must keep its own values, never receive the publisher''s.',
                  HINT = 'Publish tables only (FOR ALL TABLES, FOR TABLE, FOR TABLES IN SCHEMA): the ids travel with the rows.';
    END IF;
END
$$;
COMMENT ON FUNCTION id_gen.check_no_sequence_publication() IS
    'raises an error if a publication of this database publishes all sequences (PostgreSQL 19+): it would copy id_gen''s state to subscribers';
CREATE FUNCTION id_gen.refuse_sequence_publication() RETURNS event_trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS 'BEGIN PERFORM id_gen.check_no_sequence_publication(); END';
REVOKE ALL ON FUNCTION id_gen.refuse_sequence_publication() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.refuse_sequence_publication() IS
    'event trigger: refuses CREATE or ALTER PUBLICATION that publishes all sequences (PostgreSQL 19+)';
CREATE EVENT TRIGGER id_gen_refuse_sequence_publication ON ddl_command_end
    WHEN TAG IN ('CREATE PUBLICATION', 'ALTER PUBLICATION')
    EXECUTE FUNCTION id_gen.refuse_sequence_publication();
COMMENT ON EVENT TRIGGER id_gen_refuse_sequence_publication IS
    'keeps the sequences id_gen keeps its state in out of publications (PostgreSQL 19+)';
-- A database that publishes sequences already cannot take the extension.
SELECT id_gen.check_no_sequence_publication();
