#!/usr/bin/env bash
# scripts/quickstart.sh: build, install and start a throwaway PostgreSQL with
# id_gen created, and show every generator working.
#
#   bash scripts/quickstart.sh          # as root on Debian 12 (installs packages)
#   bash scripts/quickstart.sh stop     # stop the throwaway server and remove it
#
# The cluster lives in /tmp/id_gen-demo, listens on a private port (54329,
# or $ID_GEN_PORT) and on a Unix socket in that directory, and preloads
# id_gen (the recommended configuration).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

DEMO=${ID_GEN_DEMO_DIR:-/tmp/id_gen-demo}
PORT=${ID_GEN_PORT:-54329}

if [ "${1:-}" = stop ]; then
    [ -d "$DEMO/data" ] && as_user "$PG_BIN/pg_ctl" -D "$DEMO/data" -m fast stop || true
    rm -rf "$DEMO"
    exit 0
fi

install_deps
make -s
if [ "$(id -u)" -eq 0 ]; then
    make -s install
else
    make -s install || { echo "make install needs write access to $(pg_config --pkglibdir); run as root" >&2; exit 1; }
fi

if [ -d "$DEMO/data" ]; then
    as_user "$PG_BIN/pg_ctl" -D "$DEMO/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$DEMO"
fi
mkdir -p "$DEMO"
[ "$(id -u)" -eq 0 ] && chown "$RUN_USER" "$DEMO"
as_user "$PG_BIN/initdb" -D "$DEMO/data" -U postgres -A trust >/dev/null
cat >>"$DEMO/data/postgresql.conf" <<CONF
port = $PORT
listen_addresses = 'localhost'
unix_socket_directories = '$DEMO'
shared_preload_libraries = 'id_gen'
id_gen.worker_id = 1
id_gen.launch_id = 1
CONF
as_user "$PG_BIN/pg_ctl" -D "$DEMO/data" -l "$DEMO/server.log" -w start >/dev/null

PSQL=("$PG_BIN/psql" -h "$DEMO" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -X)
as_user "${PSQL[@]}" -q -c "CREATE EXTENSION id_gen"
as_user "${PSQL[@]}" -f scripts/demo.sql

echo
echo "id_gen is running. Connect with:"
echo "    psql -h $DEMO -p $PORT -U postgres postgres"
echo "Stop and remove the throwaway server with:"
echo "    bash scripts/quickstart.sh stop"
