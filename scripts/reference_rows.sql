-- scripts/reference_rows.sql: the rows of docs/reference.md's function tables,
-- from the catalog, in the page's format, for a database with id_gen created:
--   psql -XAt -d db -f scripts/reference_rows.sql
-- The same functions as test/t/096_docs_reference.pl checks (support
-- functions of the type, its operators, operator classes and aggregates, and
-- trigger functions left out); the description is the function's COMMENT.
SET search_path = public, pg_catalog;
SELECT format('| `%s(%s)` | `%s` | %s | %s |',
              CASE n.nspname WHEN 'public' THEN '' ELSE n.nspname || '.' END || p.proname,
              replace(regexp_replace(regexp_replace(pg_get_function_arguments(p.oid),
                      '(, )?OUT [^,]+', '', 'g'), '^, ', ''), 'timestamp with time zone', 'timestamptz'),
              coalesce((SELECT CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END || '(' ||
                               replace(string_agg(a.name || ' ' || format_type(a.typ, NULL), ', ' ORDER BY a.ord),
                                       'timestamp with time zone', 'timestamptz') || ')'
                          FROM unnest(p.proargnames, p.proargmodes, p.proallargtypes)
                               WITH ORDINALITY AS a(name, mode, typ, ord)
                         WHERE a.mode IN ('o', 't')),
                       replace(pg_get_function_result(p.oid), 'timestamp with time zone', 'timestamptz')),
              CASE WHEN p.prokind = 'a' THEN 'aggregate'
                   ELSE CASE p.provolatile WHEN 'v' THEN 'volatile' WHEN 's' THEN 'stable' ELSE 'immutable' END
                        || ', ' || CASE p.proparallel WHEN 's' THEN 'safe' WHEN 'r' THEN 'restricted' ELSE 'unsafe' END
                        || CASE WHEN p.proisstrict THEN ', strict' ELSE '' END END,
              replace(coalesce(obj_description(p.oid, 'pg_proc'), ''), '|', '\|'))
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
   AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
   AND p.oid NOT IN (SELECT typinput FROM pg_type UNION SELECT typoutput FROM pg_type
                     UNION SELECT typreceive FROM pg_type UNION SELECT typsend FROM pg_type
                     UNION SELECT oprcode FROM pg_operator UNION SELECT amproc FROM pg_amproc
                     UNION SELECT aggtransfn FROM pg_aggregate UNION SELECT aggcombinefn FROM pg_aggregate)
 ORDER BY p.proname, p.oid;
