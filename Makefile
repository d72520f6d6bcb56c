# Sluice build. `make` builds build/sluice and the Slurm command links in
# build/bin; `make up` starts a local cluster; `make check` runs every test.
# BUILD=dir selects the output directory (several builds can coexist);
# SAN=1 builds with ASan+UBSan. NORECORDS=1 builds a controller that writes
# no accounting records (for bench/acct_cost.sh only: BUILD=build-norec).

BUILD ?= build
CC ?= cc
OPT ?= -O2
CFLAGS ?= $(OPT) -g
WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wformat=2 -Wno-format-nonliteral -Wvla
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-Wno-format-truncation # gcc 12 false positive on vsnprintf(NULL, 0) under ASan
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(NORECORDS),1)
CPPFLAGS += -DSLUICE_BENCH_NO_RECORDS
endif
CPPFLAGS += -Isrc -Isrc/lib -MMD -MP
LDLIBS := -lsqlite3 -lmunge -lnettle -lcrypto -ljansson -lz -lm

LIB_SRC := $(sort $(wildcard src/lib/*.c))
SCHED_SRC := $(sort $(wildcard src/sched/*.c))
SIM_SRC := $(sort $(wildcard src/sim/*.c))
CTLD_SRC := $(sort $(wildcard src/ctld/*.c))
NODED_SRC := $(sort $(wildcard src/noded/*.c))
CMD_SRC := $(sort $(wildcard src/cmd/*.c))
UNIT_SRC := $(sort $(wildcard t/unit/test_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
SCHED_OBJ := $(SCHED_SRC:%.c=$(BUILD)/obj/%.o)
SIM_OBJ := $(SIM_SRC:%.c=$(BUILD)/obj/%.o)
CTLD_OBJ := $(CTLD_SRC:%.c=$(BUILD)/obj/%.o)
NODED_OBJ := $(NODED_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
# Link order: users before what they use.
ALL_LIBS := $(BUILD)/libctld.a $(BUILD)/libnoded.a $(BUILD)/libcmd.a $(BUILD)/libsim.a $(BUILD)/libsched.a $(BUILD)/libsluice.a
UNIT_BIN := $(UNIT_SRC:t/unit/%.c=$(BUILD)/t/%)

LINKS := sbatch srun salloc sbcast squeue sinfo scontrol scancel sprio sdiag sacct sstat sacctmgr sshare sreport sluice

.PHONY: all deps up check test-unit test-integration test-san test-valgrind clean fuzz fuzz-run bench bench-sched bench-reasons bench-metrics bench-jobacct bench-node bench-sshare bench-why bench-cgroup bench-health bench-nccl
all: $(BUILD)/sluice $(addprefix $(BUILD)/bin/,$(LINKS)) $(UNIT_BIN)

# OpenPMIx's headers, for the one file that serves PMIx (noded/pmix_srv.c);
# the library itself is dlopen'ed by a step supervisor that needs it, so
# no command pays its load at start-up.
PMIX_CFLAGS := $(shell pkg-config --cflags pmix 2>/dev/null || echo -I/usr/lib/x86_64-linux-gnu/pmix2/include)
$(BUILD)/obj/src/noded/pmix_srv.o: CPPFLAGS += $(PMIX_CFLAGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

# One static library per layer; an empty layer gives an empty archive.
define layer_lib
$(BUILD)/$(1).a: $(2)
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(eval $(call layer_lib,libsluice,$(LIB_OBJ)))
$(eval $(call layer_lib,libsched,$(SCHED_OBJ)))
$(eval $(call layer_lib,libsim,$(SIM_OBJ)))
$(eval $(call layer_lib,libctld,$(CTLD_OBJ)))
$(eval $(call layer_lib,libnoded,$(NODED_OBJ)))
$(eval $(call layer_lib,libcmd,$(CMD_OBJ)))

# SQLite, Nettle, Jansson and zlib are linked statically into the binary: every
# command is a new process, and resolving their symbols at each start cost
# ~0.3 ms of a ~1 ms sbatch (measured with hyperfine; Debian ships the .a
# files in the same -dev packages). Sanitizer builds stay dynamic.
ifeq ($(SAN),1)
BIN_LDLIBS := $(LDLIBS)
else
BIN_LDLIBS := -Wl,-Bstatic -lsqlite3 -lnettle -ljansson -lz -Wl,-Bdynamic -lmunge -lcrypto -lm
endif
$(BUILD)/sluice: $(BUILD)/obj/src/sluice.o $(ALL_LIBS)
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/obj/src/sluice.o -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(BIN_LDLIBS)

$(BUILD)/bin/%: $(BUILD)/sluice
	@mkdir -p $(dir $@)
	ln -sf ../sluice $@

$(BUILD)/t/%: t/unit/%.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -It/unit -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

# Debian packages the build and the tests need (installed only if missing).
DEPS := gcc make libsqlite3-dev libmunge-dev munge nettle-dev libssl-dev libjansson-dev \
	sharness perl procps psmisc sqlite3 clang libclang-rt-14-dev valgrind iproute2 \
	libmicrohttpd-dev zlib1g-dev prometheus mpich libmpich-dev openmpi-bin libopenmpi-dev python3-mpi4py \
	libpmix-dev
deps:
	@missing=$$(for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	fi

up: deps all
	$(BUILD)/bin/sluice up $(UP_ARGS)

test-unit: all
	prove -f $(UNIT_BIN)

test-integration: all
	t/setup-users.sh
	SLUICE_BUILD=$(abspath $(BUILD)) prove -f t/integration/*.t

# The whole suite: unit and integration tests on the normal build, then
# all of it again under ASan+UBSan (about 4 minutes each on 2 cores).
# `make test-unit test-integration` is the quick loop while developing.
check: deps
	$(MAKE) all
	$(MAKE) test-unit
	$(MAKE) test-integration
	$(MAKE) test-san

# The whole suite under ASan+UBSan in its own build directory.
test-san: deps
	$(MAKE) BUILD=build-san SAN=1 all
	$(MAKE) BUILD=build-san SAN=1 test-unit test-integration

# The daemons under valgrind (memcheck) for a few integration tests, from a
# plain -O1 build in build-vg: t/cluster.sh (SLUICE_VALGRIND=1) fails a
# script whose daemons logged valgrind errors or definite leaks.
VG_TESTS := 0010-basic.t 0030-cancel.t 0040-restart.t 0060-auth.t 0080-srun.t 0190-select.t \
	0200-job-inherit.t 0210-option-privilege.t 0220-step-cred.t 0270-dead-supervisor.t \
	0280-timelimit-update.t 0310-ctld-state.t 0330-submit-retry.t 0500-ctld-metrics.t \
	0700-why.t 0870-resv.t 0871-resv-end.t
test-valgrind: deps
	$(MAKE) BUILD=build-vg OPT=-O1 build-vg/sluice $(addprefix build-vg/bin/,$(LINKS)) build-vg/t/test_ctld_requests
	t/setup-users.sh
	SLUICE_VALGRIND=1 SLUICE_BUILD=$(abspath build-vg) prove -f $(addprefix t/integration/,$(VG_TESTS))

FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
fuzz: $(BUILD)/libsluice.a
	@mkdir -p $(BUILD)/fuzz
	for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang $(CPPFLAGS) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -o $(BUILD)/fuzz/$$n $$f $(LIB_SRC) $(SCHED_SRC) $(SIM_SRC) $(LDLIBS) || exit 1; done

# Run every fuzz target for FUZZ_SECONDS (crash inputs land in $(BUILD)/fuzz).
FUZZ_SECONDS ?= 60
fuzz-run: fuzz
	for f in $(FUZZ_SRC); do n=$$(basename $$f .c); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  $(BUILD)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(BUILD)/fuzz/$$n- \
	    $(BUILD)/fuzz/corpus-$$n || exit 1; done

# The cost of one resource-use sample on the node (bench/jobacct_sample.c).
bench-jobacct: $(BUILD)/bench/jobacct_sample
	$(BUILD)/bench/jobacct_sample

$(BUILD)/bench/jobacct_sample: bench/jobacct_sample.c $(BUILD)/libnoded.a $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libnoded.a $(BUILD)/libsluice.a $(LDLIBS)

# The node's cost per job of its cgroup, against a plain launch
# (bench/cgroup_ops.c, as root on the real hierarchy).
bench-cgroup: $(BUILD)/bench/cgroup_ops
	$(BUILD)/bench/cgroup_ops

$(BUILD)/bench/cgroup_ops: bench/cgroup_ops.c $(BUILD)/libnoded.a $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libnoded.a $(BUILD)/libsluice.a $(LDLIBS)

# The scheduler core's pass benchmark (bench/sched_pass.c): builds and runs it.
bench-sched: $(BUILD)/bench/sched_pass
	$(BUILD)/bench/sched_pass

$(BUILD)/bench/sched_pass: bench/sched_pass.c $(BUILD)/libsched.a $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsched.a $(BUILD)/libsluice.a $(LDLIBS)

# Telling pending reasons apart at 10,000 nodes (bench/sched_reasons.c).
bench-reasons: $(BUILD)/bench/sched_reasons
	$(BUILD)/bench/sched_reasons

$(BUILD)/bench/sched_reasons: bench/sched_reasons.c $(BUILD)/libsched.a $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsched.a $(BUILD)/libsluice.a $(LDLIBS)

# The controller's /metrics at 10,000 nodes and 100,000 jobs
# (bench/metrics_scrape.c; docs/benchmarks.md).
bench-metrics: $(BUILD)/bench/metrics_scrape
	$(BUILD)/bench/metrics_scrape

$(BUILD)/bench/metrics_scrape: bench/metrics_scrape.c t/unit/ctld_fixture.h $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

# The node daemon's /metrics render time and size with 8 fake GPUs, 8 IB
# ports and 4 jobs (bench/node_scrape.c; --lib libnvidia-ml.so.1 for real GPUs).
bench-node: $(BUILD)/bench/node_scrape
	$(BUILD)/bench/node_scrape

bench-health: $(BUILD)/bench/health_round
	$(BUILD)/bench/health_round

$(BUILD)/bench/health_round: bench/health_round.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

$(BUILD)/bench/node_scrape: bench/node_scrape.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

# The NCCL transport check's reading of job output (bench/nccl_scan.c).
bench-nccl: $(BUILD)/bench/nccl_scan
	$(BUILD)/bench/nccl_scan

$(BUILD)/bench/nccl_scan: bench/nccl_scan.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsluice.a $(LDLIBS)

# `sluice why` behind 100,000 pending jobs (bench/why_large.c).
bench-why: $(BUILD)/bench/why_large
	$(BUILD)/bench/why_large

$(BUILD)/bench/why_large: bench/why_large.c t/unit/ctld_fixture.h $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

# The controller's side of `sshare -a` on 1,000 users (bench/sshare_tree.c).
bench-sshare: $(BUILD)/bench/sshare_tree
	$(BUILD)/bench/sshare_tree

$(BUILD)/bench/sshare_tree: bench/sshare_tree.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(ALL_LIBS) -Wl,--end-group $(LDLIBS)

clean:
	rm -rf build build-san build-vg

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
