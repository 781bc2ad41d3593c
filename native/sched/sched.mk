# The deterministic scheduler's build rules (native/sched/), included at the end of
# native/Makefile and run from native/. Uses that Makefile's BUILD, CC, CFLAGS,
# ASAN_FLAGS and TSAN_FLAGS.
#
#   make sched-test          the scheduler's C tests under ASan+UBSan, "N passed, N failed"
#   make sched-test-tsan     the same tests under ThreadSanitizer
#   make sched-test-plain    the same tests at -O2 without sanitizers, with the assembly
#                            switch and with swapcontext (-DTL_SCHED_UCONTEXT)
#   make sched-header        $(BUILD)/sched/tl_sched.h: the library as one file
#   make sched-standalone    a test that needs only that one file, compiled and run
#   make sched-lib           $(BUILD)/libtl_sched.so (exports exactly the tl_sched_ functions)
#   make sched-bench         switches per second (contexts, swapcontext, OS threads) and
#                            complete schedules per second of a toy program
#
# `make test` runs sched-lib, sched-test and sched-standalone before the engine's tests,
# and `make test-tsan` runs sched-test-tsan first (prerequisites added here, so the
# engine's "N passed, N failed" stays the last line).
#
# Every test file is compiled with the renaming header forced in (-include), as the code
# under test would be; the implementation is one file (tests/sched_impl.c).

SCHED_DIR    := sched
SCHED_HDRS   := $(SCHED_DIR)/tl_sched.h $(SCHED_DIR)/tl_sched_api.h \
                $(SCHED_DIR)/tl_sched_interpose.h $(wildcard $(SCHED_DIR)/impl/*.h)
SCHED_TESTS  := $(wildcard $(SCHED_DIR)/tests/*.c)
SCHED_OUT    := $(BUILD)/sched
SCHED_FORCE  := -include $(SCHED_DIR)/tl_sched_interpose.h
SCHED_ENV    := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 \
                UBSAN_OPTIONS=print_stacktrace=1

.PHONY: sched-test sched-test-tsan sched-test-plain sched-header sched-standalone sched-lib \
        sched-bench

$(SCHED_OUT)/tests_asan: $(SCHED_TESTS) $(SCHED_HDRS) $(SCHED_DIR)/tests/sched_check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(SCHED_FORCE) -o $@ $(SCHED_TESTS) $(LDLIBS)

$(SCHED_OUT)/tests_tsan: $(SCHED_TESTS) $(SCHED_HDRS) $(SCHED_DIR)/tests/sched_check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) $(SCHED_FORCE) -o $@ $(SCHED_TESTS) $(LDLIBS)

$(SCHED_OUT)/tests_plain: $(SCHED_TESTS) $(SCHED_HDRS) $(SCHED_DIR)/tests/sched_check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SCHED_FORCE) -o $@ $(SCHED_TESTS) $(LDLIBS)

$(SCHED_OUT)/tests_ucontext: $(SCHED_TESTS) $(SCHED_HDRS) $(SCHED_DIR)/tests/sched_check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DTL_SCHED_UCONTEXT $(SCHED_FORCE) -o $@ $(SCHED_TESTS) $(LDLIBS)

sched-test: $(SCHED_OUT)/tests_asan
	$(SCHED_ENV) ./$(SCHED_OUT)/tests_asan

sched-test-tsan: $(SCHED_OUT)/tests_tsan
	TSAN_OPTIONS=halt_on_error=1 ./$(SCHED_OUT)/tests_tsan

sched-test-plain: $(SCHED_OUT)/tests_plain $(SCHED_OUT)/tests_ucontext
	./$(SCHED_OUT)/tests_plain
	./$(SCHED_OUT)/tests_ucontext

# The amalgamation: tl_sched.h with its #include "..." lines replaced by the files.
$(SCHED_OUT)/tl_sched.h: $(SCHED_HDRS) $(SCHED_DIR)/amalgamate.sh
	@mkdir -p $(@D)
	sh $(SCHED_DIR)/amalgamate.sh $(SCHED_DIR)/tl_sched.h > $@

sched-header: $(SCHED_OUT)/tl_sched.h

$(SCHED_OUT)/standalone: $(SCHED_DIR)/tests/standalone/standalone.c $(SCHED_OUT)/tl_sched.h
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -I$(SCHED_OUT) -o $@ $< $(LDLIBS)

sched-standalone: $(SCHED_OUT)/standalone
	$(SCHED_ENV) ./$(SCHED_OUT)/standalone

$(BUILD)/libtl_sched.so: $(SCHED_DIR)/tl_sched_lib.c $(SCHED_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,--no-undefined -o $@ $< $(LDLIBS)

sched-lib: $(BUILD)/libtl_sched.so
	@bad=$$(nm -D --defined-only $< | awk '{print $$3}' | grep -v '^tl_sched_' || true); \
	  if [ -n "$$bad" ]; then echo "libtl_sched.so exports more than tl_sched_*: $$bad"; exit 1; fi
	@echo "libtl_sched.so: $$(nm -D --defined-only $< | grep -c ' tl_sched_') tl_sched_ symbols, nothing else"

$(SCHED_OUT)/bench_sched: $(SCHED_DIR)/bench/bench_sched.c $(SCHED_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SCHED_FORCE) -o $@ $< $(LDLIBS)

$(SCHED_OUT)/bench_sched_ucontext: $(SCHED_DIR)/bench/bench_sched.c $(SCHED_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DTL_SCHED_UCONTEXT $(SCHED_FORCE) -o $@ $< $(LDLIBS)

sched-bench: $(SCHED_OUT)/bench_sched $(SCHED_OUT)/bench_sched_ucontext
	./$(SCHED_OUT)/bench_sched
	./$(SCHED_OUT)/bench_sched_ucontext

test: sched-lib sched-test sched-standalone
test-tsan: sched-test-tsan
