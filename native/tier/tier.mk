# The C expert tier's build rules, included at the end of native/Makefile and run from
# native/. Uses that Makefile's BUILD, CFLAGS, DEPFLAGS, LDLIBS, COMMON_OBJ, the ASan and
# TSan flags and folders, and its pattern rules for objects.
#
#   make tier            $(BUILD)/libtierlab_ctier_cpu.so (the tier and the engine adapter,
#                        linked against libtierlab_cpu.so) and libtierlab_ctier_fake.so (the
#                        tier and the fake backend, no engine)
#   make tier-cuda       $(BUILD)/libtierlab_ctier_cuda.so (against libtierlab_cuda.so)
#   make tier-vulkan     $(BUILD)/libtierlab_ctier_vulkan.so (against libtierlab_vulkan.so)
#   make tier-test       the tier's C tests under ASan+UBSan (fake backend, real threads;
#                        and the CPU engine through the adapter); "N passed, N failed" last
#   make tier-tsan       the same tests under ThreadSanitizer
#   make tier-stress     the stress program (real threads, sleeps in the fake's hooks):
#                        STRESS_ARGS="--iterations N --sleep-us U --seed S [--progress] [--log FILE]"
#   make tier-stress-tsan  the same program under ThreadSanitizer
#   make tier-check-exports  each tier library exports exactly the TT_API functions
#   make tier-engine-check-cpu|cuda|vulkan  the engine scenario through the tier library
#                        linked against that engine (TIER_DEVICES=1 or 2, default 1)
#
# Why a library of its own, linked against the engine's, and not new TL_API functions in
# the engine: the engine's ABI, its version and its binding stay as they are; the tier is
# built from its own sources, so a deterministic scheduler can compile exactly those with
# its interposing header (`-include`) and never the engine's own worker threads; and it is
# the split an engine author has (their tier over a device library).

TIER_DIR := tier
TIER_CORE_SRC := $(filter-out $(TIER_DIR)/fake_%.c $(TIER_DIR)/engine_backend.c,$(wildcard $(TIER_DIR)/*.c))
TIER_FAKE_SRC := $(wildcard $(TIER_DIR)/fake_*.c)
TIER_ENGINE_SRC := $(TIER_DIR)/engine_backend.c
TIER_TEST_SRC := $(wildcard $(TIER_DIR)/tests/*.c)
TIER_HEADERS := $(TIER_DIR)/tt.h $(TIER_DIR)/tt_events.h $(TIER_DIR)/engine_backend.h \
                $(TIER_DIR)/fake_backend.h
TIER_GEN := $(BUILD)/tier
TIER_TEST_LIBS := tests/harness.c tests/engine_fixture.c tests/expert_gen.c

TIER_CORE_OBJ := $(TIER_CORE_SRC:%.c=$(BUILD)/obj/%.o)
TIER_FAKE_OBJ := $(TIER_FAKE_SRC:%.c=$(BUILD)/obj/%.o)
TIER_ENGINE_OBJ := $(TIER_ENGINE_SRC:%.c=$(BUILD)/obj/%.o)

TIER_ASAN_OBJ := $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(TIER_CORE_SRC) $(TIER_FAKE_SRC) \
                   $(TIER_ENGINE_SRC) $(TIER_TEST_SRC) $(TIER_TEST_LIBS) $(COMMON_SRC) $(CPU_SRC))
TIER_TSAN_OBJ := $(patsubst %.c,$(TSAN_DIR)/obj/%.o,$(TIER_CORE_SRC) $(TIER_FAKE_SRC) \
                   $(TIER_ENGINE_SRC) $(TIER_TEST_SRC) $(TIER_TEST_LIBS) $(COMMON_SRC) $(CPU_SRC))
TIER_STRESS_OBJ := $(patsubst %.c,$(TIER_GEN)/stress/%.o,$(TIER_CORE_SRC) $(TIER_FAKE_SRC) \
                     $(TIER_DIR)/stress/tier_stress.c)

TIER_EXPORTS := $(TIER_GEN)/exports.txt
TIER_MAP := $(TIER_GEN)/exports.map

.PHONY: tier tier-cuda tier-vulkan tier-test tier-tsan tier-stress tier-stress-tsan tier-check-exports \
        tier-engine-check-cpu tier-engine-check-cuda tier-engine-check-vulkan

tier: $(BUILD)/libtierlab_ctier_cpu.so $(BUILD)/libtierlab_ctier_fake.so

tier-cuda: $(BUILD)/libtierlab_ctier_cuda.so

tier-vulkan: $(BUILD)/libtierlab_ctier_vulkan.so

$(TIER_EXPORTS): $(TIER_HEADERS)
	@mkdir -p $(@D)
	cat $^ | sed -n 's/^TT_API[^(]*[ *]\([a-z][a-z0-9_]*\)(.*/\1/p' | sort > $@

$(TIER_MAP): $(TIER_EXPORTS)
	{ echo '{ global:'; sed 's/.*/  &;/' $<; echo 'local: *; };'; } > $@

# The tier over one engine library: the adapter's symbols plus the tier's; the fake
# backend's are left out of this one, so its export list is the generated one minus fb_*.
$(BUILD)/libtierlab_ctier_%.so: $(TIER_CORE_OBJ) $(TIER_ENGINE_OBJ) $(BUILD)/libtierlab_%.so $(TIER_MAP)
	$(CC) $(CFLAGS) -shared -Wl,--version-script=$(TIER_MAP) -Wl,--no-undefined -o $@ \
	  $(TIER_CORE_OBJ) $(TIER_ENGINE_OBJ) -L$(BUILD) -ltierlab_$* -Wl,-rpath,'$$ORIGIN' $(LDLIBS)

$(BUILD)/libtierlab_ctier_fake.so: $(TIER_CORE_OBJ) $(TIER_FAKE_OBJ) $(TIER_MAP)
	$(CC) $(CFLAGS) -shared -Wl,--version-script=$(TIER_MAP) -Wl,--no-undefined -o $@ \
	  $(TIER_CORE_OBJ) $(TIER_FAKE_OBJ) $(LDLIBS)

tier-check-exports: tier $(TIER_EXPORTS)
	@grep -v '^fb_' $(TIER_EXPORTS) | grep -v '^tt_engine_backend' > $(TIER_GEN)/core.txt
	@{ cat $(TIER_GEN)/core.txt; echo tt_engine_backend_init; } | sort > $(TIER_GEN)/cpu.expected
	@{ cat $(TIER_GEN)/core.txt; grep '^fb_' $(TIER_EXPORTS); } | sort > $(TIER_GEN)/fake.expected
	@nm -D --defined-only $(BUILD)/libtierlab_ctier_cpu.so | awk '{print $$3}' | sort \
	  | diff -u $(TIER_GEN)/cpu.expected - || { echo "ctier_cpu exports differ"; exit 1; }
	@nm -D --defined-only $(BUILD)/libtierlab_ctier_fake.so | awk '{print $$3}' | sort \
	  | diff -u $(TIER_GEN)/fake.expected - || { echo "ctier_fake exports differ"; exit 1; }
	@echo "tier exports: $$(wc -l < $(TIER_GEN)/cpu.expected) (cpu), $$(wc -l < $(TIER_GEN)/fake.expected) (fake)"

$(TIER_GEN)/asan/tier_tests: $(TIER_ASAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $(TIER_ASAN_OBJ) $(LDLIBS)

tier-test: $(TIER_GEN)/asan/tier_tests
	ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./$(TIER_GEN)/asan/tier_tests

$(TIER_GEN)/tsan/tier_tests: $(TIER_TSAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $(TIER_TSAN_OBJ) $(LDLIBS)

tier-tsan: $(TIER_GEN)/tsan/tier_tests
	TSAN_OPTIONS=halt_on_error=1 ./$(TIER_GEN)/tsan/tier_tests

$(TIER_GEN)/stress/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -g $(DEPFLAGS) -c $< -o $@

$(TIER_GEN)/tier_stress: $(TIER_STRESS_OBJ)
	$(CC) $(CFLAGS) -o $@ $(TIER_STRESS_OBJ) $(LDLIBS)

# The engine scenario against the installed libraries (no sanitizer: the CUDA runtime and
# the Vulkan driver are not built for it).
TIER_CHECK_SRC := $(TIER_DIR)/check/tier_engine_check.c $(TIER_DIR)/tests/test_engine.c \
                  tests/harness.c tests/engine_fixture.c tests/expert_gen.c
TIER_DEVICES ?= 1
$(TIER_GEN)/tier_engine_check_%: $(TIER_CHECK_SRC) $(BUILD)/libtierlab_ctier_%.so
	$(CC) $(CFLAGS) -o $@ $(TIER_CHECK_SRC) -L$(BUILD) -ltierlab_ctier_$* -ltierlab_$* \
	  -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

# Decode tokens per second with the tier's event log on or off (scripts/gpu/remote_trace_cost.sh).
TIER_RATE_SRC := $(TIER_DIR)/check/tier_decode_rate.c tests/engine_fixture.c tests/expert_gen.c tests/harness.c
$(TIER_GEN)/tier_decode_rate_%: $(TIER_RATE_SRC) $(BUILD)/libtierlab_ctier_%.so
	$(CC) $(CFLAGS) -o $@ $(TIER_RATE_SRC) -L$(BUILD) -ltierlab_ctier_$* -ltierlab_$* \
	  -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

tier-engine-check-cpu: $(TIER_GEN)/tier_engine_check_cpu
	./$< $(TIER_DEVICES)

tier-engine-check-cuda: $(TIER_GEN)/tier_engine_check_cuda
	./$< $(TIER_DEVICES)

tier-engine-check-vulkan: $(TIER_GEN)/tier_engine_check_vulkan
	./$< $(TIER_DEVICES)

TIER_STRESS_TSAN_OBJ := $(patsubst %.c,$(TSAN_DIR)/obj/%.o,$(TIER_CORE_SRC) $(TIER_FAKE_SRC) \
                          $(TIER_DIR)/stress/tier_stress.c)
$(TIER_GEN)/tsan/tier_stress: $(TIER_STRESS_TSAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $(TIER_STRESS_TSAN_OBJ) $(LDLIBS)

STRESS_ARGS ?=
tier-stress: $(TIER_GEN)/tier_stress
	./$(TIER_GEN)/tier_stress $(STRESS_ARGS)

tier-stress-tsan: $(TIER_GEN)/tsan/tier_stress
	TSAN_OPTIONS=halt_on_error=1 ./$(TIER_GEN)/tsan/tier_stress $(STRESS_ARGS)

-include $(TIER_ASAN_OBJ:.o=.d) $(TIER_TSAN_OBJ:.o=.d) $(TIER_STRESS_OBJ:.o=.d) $(TIER_STRESS_TSAN_OBJ:.o=.d) \
         $(TIER_CORE_OBJ:.o=.d) $(TIER_FAKE_OBJ:.o=.d) $(TIER_ENGINE_OBJ:.o=.d)

include $(TIER_DIR)/harness/harness.mk
