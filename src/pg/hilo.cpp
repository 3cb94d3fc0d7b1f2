/*
 * hilo.cpp: hilo_next(table) glue (placeholder until the Hi/Lo work lands).
 */
#include "pg/pg.hpp"

void
idgen_hilo_init(void)
{
}
