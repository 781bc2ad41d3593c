# The C tier's schedule harness (native/tier/harness/), included at the end of
# native/tier/tier.mk and run from native/. Uses native/Makefile's BUILD, CC, CFLAGS,
# DEPFLAGS and LDLIBS and tier.mk's TIER_CORE_SRC and TIER_FAKE_SRC.
#
#   make tier-sched-lib   $(BUILD)/libtierlab_ctier_sched.so: the tier (every file of
#                         TIER_CORE_SRC, unedited) and the engine driver compiled with the
#                         scheduler's renaming header and TT_YIELD as its backend-entry
#                         point; the fake backend, the scenario reader, the record log
#                         and the scheduler itself compiled plain; exports th_* only
#
# Why the fake backend is compiled plain: it is the device, not the code under test; its
# own lock is never held across a scheduling point (its hook runs outside it), so on the
# scheduler's one OS thread it is always free, and leaving it out of the schedule keeps
# the interleavings to those of the tier and the engine. The tier's scheduling points are
# exactly its pthread calls and TT_YIELD at each backend entry (tt_dispatch.c).

TH_DIR := tier/harness
TH_GEN := $(BUILD)/tier/sched
TH_SCHED_FLAGS := -include sched/tl_sched_interpose.h '-DTT_YIELD(site)=tl_sched_backend_enter((site), 0)'
TH_SCHEDULED_SRC := $(TIER_CORE_SRC) $(TH_DIR)/th_driver.c
TH_PLAIN_SRC := $(TIER_FAKE_SRC) $(TH_DIR)/th_calls.c $(TH_DIR)/th_config.c $(TH_DIR)/th_world.c \
                $(TH_DIR)/th_log.c $(TH_DIR)/th_run.c
TH_SCHEDULED_OBJ := $(TH_SCHEDULED_SRC:%.c=$(TH_GEN)/sched/%.o)
TH_PLAIN_OBJ := $(TH_PLAIN_SRC:%.c=$(TH_GEN)/plain/%.o)
TH_MAP := $(TH_GEN)/exports.map

.PHONY: tier-sched-lib

$(TH_GEN)/sched/%.o: %.c $(SCHED_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(TH_SCHED_FLAGS) -c $< -o $@

$(TH_GEN)/plain/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(TH_GEN)/plain/$(TH_DIR)/th_run.o: $(SCHED_HDRS)

$(TH_MAP):
	@mkdir -p $(@D)
	printf '{ global: th_*; local: *; };\n' > $@

$(BUILD)/libtierlab_ctier_sched.so: $(TH_SCHEDULED_OBJ) $(TH_PLAIN_OBJ) $(TH_MAP)
	$(CC) $(CFLAGS) -shared -Wl,--version-script=$(TH_MAP) -Wl,--no-undefined -o $@ \
	  $(TH_SCHEDULED_OBJ) $(TH_PLAIN_OBJ) $(LDLIBS)

tier-sched-lib: $(BUILD)/libtierlab_ctier_sched.so
	@bad=$$(nm -D --defined-only $< | awk '{print $$3}' | grep -v '^th_' || true); \
	  if [ -n "$$bad" ]; then echo "libtierlab_ctier_sched.so exports more than th_*: $$bad"; exit 1; fi

-include $(TH_SCHEDULED_OBJ:.o=.d) $(TH_PLAIN_OBJ:.o=.d)
