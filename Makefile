# id_gen: PGXS build of a C++17 PostgreSQL extension.
#
#   make                 build id_gen.so
#   make install         install into the server found by pg_config (root)
#   make test            unit + regression + isolation + TAP tests against
#                        throwaway clusters (no root, no running server)
#   make installcheck    regression + isolation tests against a running server
#                        (the ones it can run there: see INSTALLCHECK_SKIP_*)
#   make dist            PGXN release archive id_gen-<version>.zip (from HEAD)

EXTENSION = id_gen
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = id_gen

CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
PG_SRCS = $(sort $(wildcard src/pg/*.cpp src/pg/*/*.cpp))
OBJS = $(CORE_SRCS:.cpp=.o) $(PG_SRCS:.cpp=.o)
# Private headers: not HEADERS, which PGXS would install into the server's include directory.
IDGEN_HEADERS = $(wildcard src/core/*.hpp src/pg/*.hpp src/pg/*/*.hpp)

DATA = $(sort $(wildcard sql/$(EXTENSION)--*.sql))
EXTRA_CLEAN = test/unit/run_unit_tests test/fuzz/fuzz_uuid_text test/stat/id_stream .build-kind

# Regression tests run on a stock server (no shared_preload_libraries): that
# is the configuration CREATE EXTENSION must work in.
REGRESS = setup hilo hilo_errors hilo_reserve hilo_roles hilo_defaults snowflake decimal_id timeuuid timeuuid_index timeuuid_uuid timeuuid_families timeuuid_mixed timeuuid_comb id_encode jsid snowflake_spread node_identity hilo_nodes upgrade
# Tests that need the test build (make temp-install): make test runs them
# after REGRESS; make installcheck and the package, on a production build,
# do not.
REGRESS_TEST_HOOKS = clock_hooks headroom
REGRESS_OPTS = --inputdir=. --temp-config=test/regress.conf
ISOLATION = hilo_first_use hilo_sequence_changes hilo_new_key hilo_partition_maintenance hilo_privileges hilo_reserve hilo_roles snowflake_concurrent snowflake_spread decimal_concurrent decimal_claim_locks
ISOLATION_TEST_HOOKS = hilo_draw_lock timeuuid_concurrent
ISOLATION_OPTS = --inputdir=test --outputdir=output_iso
# make installcheck runs against a running server, as a user whose name is a
# superuser role there (PGHOST, PGPORT, PGUSER say which server): one that
# does not preload id_gen (setup checks the stock configuration), with
# id_gen's settings at their defaults.  It leaves out the tests that need
# test/regress.conf's settings or a fresh server, or that change the
# server's configuration: PREPARE TRANSACTION (max_prepared_transactions
# is 0 by default): hilo_reserve; id_gen.launch_id and a database whose decimal_id
# counter no earlier run advanced: decimal_id, decimal_concurrent;
# ALTER SYSTEM ... RESET and pg_reload_conf() (would drop the server's own
# id_gen.worker_id, launch_id or snowflake_start_spread): jsid,
# snowflake_spread, node_identity.  make test runs them
# all, on throwaway clusters; test/t/053_installcheck.pl runs make
# installcheck on a server of initdb's defaults.  INSTALLCHECK_ALL=1 runs
# them all against a throwaway server with test/regress.conf's settings on
# which no earlier run used decimal_id(): debian/tests/installcheck
# does, in a cluster pg_virtualenv makes for it.
INSTALLCHECK_SKIP_REGRESS = hilo_reserve decimal_id jsid snowflake_spread node_identity
INSTALLCHECK_SKIP_ISOLATION = snowflake_spread decimal_concurrent
ifndef INSTALLCHECK_ALL
installcheck: REGRESS := $(filter-out $(INSTALLCHECK_SKIP_REGRESS),$(REGRESS))
installcheck: ISOLATION := $(filter-out $(INSTALLCHECK_SKIP_ISOLATION),$(ISOLATION))
endif
# TAP tests (test/t/) run only through make test-tap, against tmp_install: they
# need the test-hook build and start their own servers.  Not PGXS's TAP_TESTS,
# whose installcheck would run prove on t/*.pl against the installed server
# (make clean still removes tmp_check/: it is among pg_regress's files).

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -Isrc
PG_CXXFLAGS = -std=c++17 -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
ifdef WERROR
PG_CXXFLAGS += -Werror
endif
# Test builds (make temp-install, hence make test) compile in pause points
# that TAP tests use to hold a backend at a chosen instant (see
# IDGEN_TEST_HOOKS in src/pg/).  make and make install never do: the
# objects record which kind of build they belong to (.build-kind), and
# switching kinds rebuilds them.
ifdef IDGEN_TEST_HOOKS
PG_CXXFLAGS += -DIDGEN_TEST_HOOKS
endif
# A build that stands for another build of the library, with another
# shared-memory layout (src/pg/shmem.cpp): test/t/004_library_replaced.pl
# makes one in a copy of the tree, never here.
ifdef IDGEN_TEST_SHMEM_LAYOUT
PG_CXXFLAGS += -DIDGEN_TEST_SHMEM_LAYOUT=$(IDGEN_TEST_SHMEM_LAYOUT)
endif
BUILD_KIND = $(if $(IDGEN_TEST_HOOKS),test-hooks,production)
SHLIB_LINK = -lstdc++ -luuid

# The extension gains nothing from JIT inlining; do not require clang.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PostgreSQL's headers are not ours to keep warning-free: -isystem.
override CPPFLAGS := $(patsubst -I/%,-isystem /%,$(CPPFLAGS))
COMPILE.cxx.bc += $(PG_CXXFLAGS)

$(OBJS): $(IDGEN_HEADERS) .build-kind

.build-kind: idgen-force
	@echo '$(BUILD_KIND)' | cmp -s - $@ || echo '$(BUILD_KIND)' > $@
idgen-force:
.PHONY: idgen-force

# ---------------------------------------------------------------------------
# Tests against throwaway clusters: a private copy of the server with this
# build installed into it (tmp_install/), so no root and no system install.
# ---------------------------------------------------------------------------
PG_BINDIR := $(shell $(PG_CONFIG) --bindir)
PG_PKGLIBDIR := $(shell $(PG_CONFIG) --pkglibdir)
PG_SHAREDIR := $(shell $(PG_CONFIG) --sharedir)
TMP_INSTALL = $(CURDIR)/tmp_install
TMP_BINDIR = $(TMP_INSTALL)$(PG_BINDIR)
PG_REGRESS = $(pgxsdir)/src/test/regress/pg_regress
PG_ISOLATION_REGRESS = $(pgxsdir)/src/test/isolation/pg_isolation_regress

GTEST_LIBS = -lgtest -lgtest_main -pthread
UNIT_SRCS = $(sort $(wildcard test/unit/*.cpp))

.PHONY: test unit fuzz temp-install test-regress test-isolation test-tap check-production-build randomness

test/unit/run_unit_tests: $(CORE_SRCS) $(UNIT_SRCS) $(wildcard src/core/*.hpp)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra $(if $(WERROR),-Werror) -Isrc \
		$(CORE_SRCS) $(UNIT_SRCS) -o $@ $(GTEST_LIBS) -luuid

unit: test/unit/run_unit_tests
	test/unit/run_unit_tests

# The stream of id_encode images of consecutive ids (and of mappings that
# must fail) for ent and dieharder: test/stat/randomness.sh.  The TAP test
# 060_id_encode_randomness.pl runs the sample; `make randomness` the long run.
test/stat/id_stream: test/stat/id_stream.cpp src/core/id_permute.cpp src/core/id_permute.hpp
	$(CXX) -std=c++17 -O2 -Wall -Wextra $(if $(WERROR),-Werror) -Isrc \
		test/stat/id_stream.cpp src/core/id_permute.cpp -o $@

randomness: test/stat/id_stream
	bash test/stat/randomness.sh long

# libFuzzer target for the UUID text parser (clang, libclang-rt-14-dev),
# run for FUZZ_TIME seconds from the seed corpus in test/fuzz/corpus.
FUZZ_TIME ?= 15
FUZZ_CXX ?= clang++
test/fuzz/fuzz_uuid_text: test/fuzz/fuzz_uuid_text.cpp src/core/uuid_layout.cpp src/core/uuid_layout.hpp
	$(FUZZ_CXX) -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Isrc test/fuzz/fuzz_uuid_text.cpp src/core/uuid_layout.cpp -o $@

fuzz: test/fuzz/fuzz_uuid_text
	rm -rf tmp_check/fuzz && mkdir -p tmp_check/fuzz/corpus
	test/fuzz/fuzz_uuid_text -max_total_time=$(FUZZ_TIME) -max_len=64 -print_final_stats=1 \
		-artifact_prefix=tmp_check/fuzz/ tmp_check/fuzz/corpus test/fuzz/corpus

temp-install:
	$(MAKE) IDGEN_TEST_HOOKS=1 all
	rm -rf $(TMP_INSTALL)
	mkdir -p $(dir $(TMP_INSTALL)$(PG_BINDIR)) $(dir $(TMP_INSTALL)$(PG_PKGLIBDIR)) \
		$(dir $(TMP_INSTALL)$(PG_SHAREDIR))
	cp -a $(PG_BINDIR) $(TMP_INSTALL)$(PG_BINDIR)
	cp -a $(PG_PKGLIBDIR) $(TMP_INSTALL)$(PG_PKGLIBDIR)
	cp -a $(PG_SHAREDIR) $(TMP_INSTALL)$(PG_SHAREDIR)
	$(MAKE) IDGEN_TEST_HOOKS=1 install DESTDIR=$(TMP_INSTALL)

test-regress:
	mkdir -p tmp_check
	$(PG_REGRESS) --temp-instance=tmp_check/regress --bindir=$(TMP_BINDIR) \
		$(REGRESS_OPTS) $(REGRESS) $(REGRESS_TEST_HOOKS)

test-isolation:
	mkdir -p tmp_check
	$(if $(ISOLATION),$(PG_ISOLATION_REGRESS) --temp-instance=tmp_check/isolation \
		--bindir=$(TMP_BINDIR) --temp-config=test/regress.conf \
		$(ISOLATION_OPTS) $(ISOLATION) $(ISOLATION_TEST_HOOKS))

# The TAP framework's data and log directories: up to 16 it derives them from
# TESTDIR (TESTDIR/tmp_check, TESTDIR/tmp_check/log); from 17 it reads
# TESTDATADIR and TESTLOGDIR and, without them, uses tmp_check/ and log/
# relative to the current directory, which breaks every test that hands such
# a path to a server (archive_command) or to pg_upgrade.  All three, absolute,
# give the same directories on every version.
TAP_DIR = $(CURDIR)/tmp_check/tap
# PROVE_TESTS=test/t/011_hilo_dump.pl runs some of them.
PROVE_TESTS ?= test/t/*.pl
test-tap: test/stat/id_stream
	rm -rf tmp_check/tap && mkdir -p tmp_check/tap
	PATH="$(TMP_BINDIR):$$PATH" PG_REGRESS=$(PG_REGRESS) TESTDIR=$(TAP_DIR) \
		IDGEN_PG_CONFIG="$(shell command -v $(PG_CONFIG))" IDGEN_TMP_INSTALL=$(TMP_INSTALL) \
		TESTDATADIR=$(TAP_DIR)/tmp_check TESTLOGDIR=$(TAP_DIR)/tmp_check/log \
		prove -I $(pgxsdir)/src/test/perl -I test/t --timer $(PROVE_FLAGS) $(PROVE_TESTS)

# The library make install would install carries no test hook.
check-production-build:
	$(MAKE) all
	@if grep -q -a 'id_gen\.test_' $(MODULE_big)$(DLSUFFIX); then \
		echo "$(MODULE_big)$(DLSUFFIX) of a production build contains a test hook" >&2; exit 1; \
	else echo "production build: no test hook in $(MODULE_big)$(DLSUFFIX)"; fi

test: unit fuzz temp-install test-regress test-isolation test-tap check-production-build

print-tmp-bindir:
	@echo $(TMP_BINDIR)

# ---------------------------------------------------------------------------
# PGXN release archive: make dist writes $(EXTENSION)-<version>.zip, the version
# read from META.json, from the committed tree (git archive HEAD, less what
# .gitattributes marks export-ignore), once scripts/check_meta.pl has checked
# META.json against that very tree.  DIST_DIR=dir writes it elsewhere.
# ---------------------------------------------------------------------------
DIST_DIR ?= .

dist:
	@set -e; \
	version=$$(git show HEAD:META.json | sed -n 's/^    "version": "\(.*\)",*$$/\1/p'); \
	test -n "$$version" || { echo "make dist: no version in META.json at HEAD" >&2; exit 1; }; \
	tree=$$(mktemp -d); trap 'rm -rf "$$tree"' EXIT; \
	git archive --format=tar HEAD | tar -x -C "$$tree"; \
	perl "$$tree/scripts/check_meta.pl" "$$tree"; \
	git diff --quiet HEAD -- || echo "make dist: warning: uncommitted changes are not in the archive (it holds HEAD)" >&2; \
	git archive --format=zip --prefix=$(EXTENSION)-$$version/ -o "$(DIST_DIR)/$(EXTENSION)-$$version.zip" HEAD; \
	echo "make dist: wrote $(DIST_DIR)/$(EXTENSION)-$$version.zip"
.PHONY: dist
