/* sql/id_gen--1.2--1.3.sql: every guarantee under adversity */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Clock floor, snowflake, decimal_id, timeuuid
-- ---------------------------------------------------------------------------
