# noisefloor — build, test, demo.
#
#   make          build build/noisefloor
#   make deps     install missing Debian packages the build and tests use
#   make fresh-check  demo and check in a new minimal Debian 12 root (root)
#   make check    unit tests (cmocka), end-to-end tests (shell), and the unit
#                 tests again under AddressSanitizer + UBSan; the store's
#                 tests run on SQLite and on a private PostgreSQL server
#   make check-throttled   check with its CPU quota at half of one CPU
#   make demo     deps, build, a real A/B comparison on the built-in workload
#   make fuzz     fuzz the importers (libFuzzer; not part of check)
#   make bench    side-by-side benchmarks against the reference tools
#   make install PREFIX=/usr/local
#   make format   reformat the tree; make format-check: fail where it differs
#   make deps-graph   the include graph of src/, module -> module
#                 (FORMAT=dot for Graphviz); make check fails on an upward one

PREFIX  ?= /usr/local
CC      ?= cc
PKGS    := sqlite3 jansson gsl libelf capstone libpq
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

# libpq is compiled against but not linked: the PostgreSQL backend loads
# it when a PostgreSQL store is named (src/store/pq.h says why).  The unit
# tests link it, to drive their test server.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out libpq,$(PKGS)) 2>/dev/null)
PQ_LIBS    := $(shell pkg-config --libs libpq 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# capstone likewise: insns loads it when it first disassembles
# (src/disasm/cs.h says why).  -lcapstone stays in PKG_LIBS, so that
# check-libs sees a missing libcapstone-dev, but is linked to nothing.
NOLINK_LIBS := -lcapstone

WARN     := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Isrc
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP
LDLIBS   := $(filter-out $(NOLINK_LIBS),$(PKG_LIBS)) -ldl -lpthread -lm

# -g1: the sanitizers' reports need function names and lines, not the
# variables and types of full -g, which cost a third of these compiles.
SAN_FLAGS := -O1 -g1 -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow

LIB_SRC  := $(sort $(shell find src -name '*.c' ! -name noisefloor.c ! -name '*_fuzz.c'))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TESTS    := $(patsubst tests/unit/%.c,build/tests/%,$(TEST_SRC))
SAN_TESTS := $(patsubst tests/unit/%.c,build/san/tests/%,$(TEST_SRC))
# Code the unit tests share (tests/unit/*.c that are not test_*.c, such as
# refdata.c), in an archive every test links: each takes what it uses.
TEST_HELP_SRC := $(sort $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c)))

LIB_OBJ     := $(patsubst %.c,build/obj/%.o,$(LIB_SRC))
SAN_LIB_OBJ := $(patsubst %.c,build/san/obj/%.o,$(LIB_SRC))

# What `make deps` installs: every package the build and `make check` use,
# by name (tests/deps.sh installs the missing ones).  A fresh Debian 12 with
# git and make has none of them but the essential ones; `make fresh-check`
# proves the list whole.
# The build: gcc, pkg-config, the libraries' -dev packages; libcapstone4
# holds the libcapstone.so.4 that insns loads: named, as no link of ours
# asks for it (libcapstone-dev brings it today).
DEB_BUILD := gcc make pkg-config libsqlite3-dev libjansson-dev libgsl-dev \
             libcapstone-dev libelf-dev libpq-dev libcapstone4
# make check, beyond the build:
#   libcmocka-dev             the unit tests
#   clang libclang-rt-dev     the fuzz target (libFuzzer), built by check
#   postgresql                tests/pg/with-server.sh's private server
#                             (initdb and pg_ctl, as the postgres user
#                             the package creates, through runuser)
#   python3 python3-numpy     Debian's /usr/bin/python3, which the e2e
#   python3-scipy             tests' checks run on; NumPy and SciPy compute
#                             reference values independently of our code
#   binutils                  objdump, objcopy, readelf, strip, as: the insns,
#                             profile and debuginfo tests
#   g++                       t_demangle.sh builds a C++ program
#   lld                       test_profile_plt reads lld's PLT stubs too
#   linux-perf                t_image_comm.sh records task:task_rename
#   procps                    pgrep: nothing a run starts is left running
#   mount                     the tmpfs mounts of t_hostile_files.sh,
#                             t_hostile_store.sh, t_store_journal_ro.sh
#   util-linux bsdutils       runuser, setpriv, prlimit, unshare, taskset;
#                             script (a terminal): essential in Debian 12,
#                             named so that they stay when that changes
#   git                       the source's commit (test_env, t_cmd_input.sh),
#                             and the repositories t_bisect.sh and
#                             t_history.sh make
#   libc6-dbg                 t_profile_debuginfo.sh resolves libc's internal
#                             functions from its detached debug file
#   clang-format              make format-check (clang-format 14)
DEB_TEST  := libcmocka-dev clang libclang-rt-dev postgresql python3 python3-numpy \
             python3-scipy binutils g++ lld linux-perf procps mount util-linux \
             bsdutils git clang-format libc6-dbg
# make bench, beyond those (it builds noisefloor, and compare-speed uses
# numpy and SciPy): perf (perf bench), hyperfine, iperf3, rt-tests
# (hackbench, cyclictest); valgrind for make valgrind.
DEB_BENCH := linux-perf hyperfine iperf3 rt-tests valgrind

.PHONY: all deps bench-deps check unit-tests san-tests e2e-tests demo fuzz \
        fuzz-build bench install clean valgrind check-libs format format-check \
        deps-graph check-layers check-citations check-throttled fresh-check FORCE

all: build/noisefloor

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

build/san/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC/SAN  $<"
	@$(CC) $(CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# The version is compiled into one object (src/core/version.c says why),
# rebuilt when the stamp's text changes.
build/version.stamp: FORCE
	@mkdir -p build
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
build/obj/src/core/version.o build/san/obj/src/core/version.o: build/version.stamp
build/obj/src/core/version.o build/san/obj/src/core/version.o: CPPFLAGS += -DNF_VERSION='"$(VERSION)"'
FORCE:

build/libnf.a: $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

build/san/libnf.a: $(SAN_LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

build/noisefloor: build/obj/src/noisefloor.o build/libnf.a | check-libs
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The tests link with gold when it is there: a quarter of the default
# linker's time, and check links twice as many tests as there are.
TEST_LD := $(shell ld.gold --version >/dev/null 2>&1 && echo -fuse-ld=gold)

build/tests/helpers.a: $(patsubst %.c,build/obj/%.o,$(TEST_HELP_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@
	@ar rcs $@ $^

build/san/tests/helpers.a: $(patsubst %.c,build/san/obj/%.o,$(TEST_HELP_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@
	@ar rcs $@ $^

build/tests/%: tests/unit/%.c build/tests/helpers.a build/libnf.a
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(TEST_LD) -o $@ $< build/tests/helpers.a build/libnf.a $(LDLIBS) $(PQ_LIBS) $(CMOCKA_LIBS)

# Helpers that tests and bench/ run (not tests themselves).
build/tests/store_writers: tests/helpers/store_writers.c build/libnf.a
	@mkdir -p $(dir $@)
	@echo "  HELPER  $@"
	@$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< build/libnf.a $(LDLIBS)

build/tests/burn: tests/helpers/burn.c tests/helpers/burn.h
	@mkdir -p $(dir $@)
	@echo "  HELPER  $@"
	@$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

build/san/tests/%: tests/unit/%.c build/san/tests/helpers.a build/san/libnf.a
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) $(TEST_LD) -o $@ $< build/san/tests/helpers.a build/san/libnf.a $(LDLIBS) $(PQ_LIBS) $(CMOCKA_LIBS)

deps:
	@sh tests/deps.sh $(DEB_BUILD) $(DEB_TEST)

# The flags above come from pkg-config when make reads this file.  On a fresh
# machine that is before `deps` has installed the -dev packages, so demo and
# check install first and then build in a new make that asks pkg-config again.
# A link without the libraries' flags would fail with pages of undefined
# references; say what is missing instead.
check-libs:
	@if [ -z "$(PKG_LIBS)" ] || [ -z "$(PQ_LIBS)" ]; then \
	    echo "noisefloor: pkg-config knows none of: $(PKGS); run 'make deps' first" >&2; exit 1; fi

bench-deps:
	@sh tests/deps.sh $(DEB_BUILD) $(DEB_TEST) $(DEB_BENCH)

# The README's two commands, as root, in a new minimal Debian 12 root
# (mmdebstrap; tests/fresh-check.sh says how); the packages above are
# checked absent from it first.
fresh-check:
	@sh tests/fresh-check.sh $(DEB_BUILD) $(DEB_TEST)

# The store's tests also run on PostgreSQL: with-server.sh starts a private
# server for the command it wraps (one for all of check) and stops it after.
PG_SERVER := sh tests/pg/with-server.sh

unit-tests: $(TESTS)
	@$(PG_SERVER) sh tests/run-unit.sh $(TESTS)

san-tests: $(SAN_TESTS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(PG_SERVER) sh tests/run-unit.sh $(SAN_TESTS)

e2e-tests: build/noisefloor build/tests/store_writers build/tests/burn
	@$(PG_SERVER) sh tests/e2e/run.sh

# check builds all it runs first, as parallel jobs (one per CPU unless make
# was given -j): the compiles are a third of its time, and on a CPU shared
# with other work two jobs still finish sooner than one.  The suites then
# run one after another with nothing built beside them: a compile next to
# the end-to-end tests, even under SCHED_IDLE, fails some that measure
# latency or sample the kernel.
CHECK_BUILD := build/noisefloor build/tests/store_writers build/tests/burn $(TESTS) $(SAN_TESTS) fuzz-build
NPROC := $(shell nproc 2>/dev/null || echo 2)

check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-layers check-citations
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) $(CHECK_BUILD)
	@$(PG_SERVER) $(MAKE) --no-print-directory unit-tests e2e-tests san-tests
	@echo "make check: all test suites passed"

# check with the tests' CPU throttled to half of one CPU (tests/throttled.sh:
# a cgroup-v1 cpu quota; root): the tests do not depend on the speed.
check-throttled:
	@sh tests/throttled.sh $(MAKE) --no-print-directory check

# Includes point downwards only; the rules are at the top of tests/includes.sh.
FORMAT ?= graph
deps-graph:
	@sh tests/includes.sh $(FORMAT)

check-layers:
	@sh tests/includes.sh check

# Comments cite doc/, not the notes the project started from.
check-citations:
	@sh tests/citations.sh

valgrind: build/noisefloor $(TESTS)
	@sh tests/valgrind.sh

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build/noisefloor
	@sh doc/demo.sh

fuzz:
	@sh tests/fuzz/run.sh

# Build the fuzz target without fuzzing (part of check, so it keeps linking).
fuzz-build:
	@sh tests/fuzz/run.sh --build-only

bench: build/noisefloor
	@sh bench/run-all.sh

install: build/noisefloor
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 build/noisefloor $(DESTDIR)$(PREFIX)/bin/noisefloor
	install -m 644 $(wildcard doc/noisefloor*.1) $(DESTDIR)$(PREFIX)/share/man/man1/

# The tree follows .clang-format (clang-format 14, Debian's clang-format).
FORMAT_SRC = $(shell find src tests -name '*.[ch]' | sort)
format:
	@clang-format -i $(FORMAT_SRC)

format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRC) && echo "format-check: the tree follows .clang-format"

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
