# scripts/common.sh: shared by quickstart.sh and test.sh.
#
# Installs what is missing (as root, with apt-get) and decides which
# unprivileged user runs PostgreSQL, which refuses to run as root.

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
RUN_USER=${ID_GEN_USER:-postgres}

# Debian packages the build, the tests and the benchmark need (ent and
# dieharder: the randomness tests of id_encode, test/stat/randomness.sh).
DEPS="postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-contrib
      uuid-dev libgtest-dev g++ make libipc-run-perl perl clang libclang-rt-14-dev
      ent dieharder"
# The drivers test/t/050_drivers.pl runs timeuuid through, Hibernate 3.6
# for test/t/051_hibernate.pl (javassist: Hibernate's bytecode provider, only
# recommended by the package), the stacks of test/t/052_stacks.pl
# (asyncpg, Django, Alembic, ActiveRecord, PgBouncer, Go with pgx v4 built offline from the
# packaged modules; its Node packages come from npm, test/drivers/node/), and the
# exporter test/t/070_headroom.pl scrapes monitoring/postgres_exporter_queries.yaml
# with (scripts/test.sh installs them and requires them: ID_GEN_DRIVERS=required).
DRIVER_DEPS="python3-psycopg2 python3-sqlalchemy python3-alembic libpostgresql-jdbc-java default-jdk-headless libhibernate3-java libjavassist-java libslf4j-java
      python3-asyncpg python3-django ruby-activerecord ruby-pg golang-go golang-github-jackc-pgx-v4-dev pgbouncer
      prometheus-postgres-exporter"
command -v npm >/dev/null 2>&1 || DRIVER_DEPS="$DRIVER_DEPS nodejs npm"
# And those the Debian package's build and test need (scripts/package.sh);
# dpkg-buildpackage checks them against debian/control's Build-Depends.
PKG_DEPS="debhelper postgresql-server-dev-all unzip"

install_deps() { # [package ...] (default: $DEPS)
    local missing=() still=() p
    for p in ${@:-$DEPS}; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages: ${missing[*]} (run this script as root to install them)" >&2
        exit 1
    fi
    echo "installing ${#missing[@]} Debian packages with apt-get: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || echo "warning: apt-get update failed; trying the package lists this machine has" >&2
    if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
        echo "error: apt-get could not install: ${missing[*]} (its message is above)." >&2
        echo "Install them (or make them installable: network, package sources) and run this again." >&2
        exit 1
    fi
    for p in "${missing[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || still+=("$p")
    done
    if [ ${#still[@]} -ne 0 ]; then
        echo "error: not installed after apt-get: ${still[*]}" >&2
        exit 1
    fi
}

# Runs "$@" as the unprivileged user (or directly when already unprivileged).
as_user() {
    if [ "$(id -u)" -eq 0 ]; then
        su "$RUN_USER" -s /bin/bash -c "$(printf '%q ' "$@")"
    else
        "$@"
    fi
}

# Sets WORK to a copy of the checkout owned by the unprivileged user when
# running as root (PostgreSQL refuses root), or to the checkout itself.
prepare_workdir() { # prefix
    if [ "$(id -u)" -eq 0 ]; then
        WORK=$(mktemp -d "/tmp/$1.XXXXXX")
        cp -a "$PWD/." "$WORK/"
        chown -R "$RUN_USER" "$WORK"
    else
        WORK=$PWD
    fi
}
