# The Vulkan backend's build rules, included at the end of native/Makefile and run from
# native/. Uses that Makefile's BUILD, CFLAGS, DEPFLAGS, COMMON_OBJ, LDLIBS and its
# pattern rule $(BUILD)/obj/%.o: %.c.
#
#   make vulkan                  $(BUILD)/libtierlab_vulkan.so
#   make vulkan-test             builds and runs the C test on Vulkan device 0
#                                (lavapipe on a machine without a GPU)
#   make vulkan-test-validation  the test under VK_LAYER_KHRONOS_validation, twice:
#                                core checks, then synchronization validation
#   make vulkan-bench            staged vs mapped upload bandwidth (for the record)
#   make vulkan-selftest         tests/cuda_selftest.c on Vulkan (staged RAM copies and
#                                completions too): imported RAM, pageable RAM, mapped
#                                uploads, and under synchronization validation
#
# Shaders: shaders/*.comp are compiled with glslc at build time into C word lists
# ($(BUILD)/vulkan/*.spv.inc, glslc -mfmt=c) that vk_shaders.c embeds in the library:
# one self-contained .so that koffi can load from anywhere, no SPIR-V committed, and
# no run-time file lookup that could pick up stale shaders.
#
# Exports: exactly the TL_API functions of include/tierlab.h and vulkan/tierlab_vulkan.h
# (a version script generated from both headers, checked after the link).

VK_DIR      := vulkan
VK_SRC      := $(wildcard $(VK_DIR)/*.c)
VK_OBJ      := $(VK_SRC:%.c=$(BUILD)/obj/%.o)
VK_SHADERS  := $(wildcard $(VK_DIR)/shaders/*.comp)
VK_GLSL     := $(wildcard $(VK_DIR)/shaders/*.glsl)
VK_GEN      := $(BUILD)/vulkan
VK_SPV_INC  := $(patsubst $(VK_DIR)/shaders/%.comp,$(VK_GEN)/%.spv.inc,$(VK_SHADERS))
VK_LIB      := $(BUILD)/libtierlab_vulkan.so
VK_TEST     := $(BUILD)/test_vulkan
VK_BENCH    := $(BUILD)/bench_vulkan_upload
VK_EXPORTS  := $(VK_GEN)/exports.txt
VK_MAP      := $(VK_GEN)/exports.map
VK_LDLIBS   := -lvulkan $(LDLIBS)
GLSLC       ?= glslc

# The layer is enabled through the loader's environment (loader 1.3.234 and later);
# TIERLAB_VK_VALIDATION=1 installs the counting messenger (and asks for the layer too).
# Synchronization validation: the 1.3.239 layer (Debian 12) reads VK_LAYER_ENABLES and
# ignores VK_KHRONOS_VALIDATION_VALIDATE_SYNC (checked: a removed barrier is caught with
# the first, not the second); later layers read the second. Both are set.
VK_LAYER_ENV := VK_LOADER_LAYERS_ENABLE='*validation*' \
                VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation TIERLAB_VK_VALIDATION=1
VK_SYNC_ENV  := $(VK_LAYER_ENV) \
                VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT \
                VK_KHRONOS_VALIDATION_VALIDATE_SYNC=1

.PHONY: vulkan vulkan-test vulkan-test-validation vulkan-bench vulkan-check-exports \
        vulkan-selftest

vulkan: $(VK_LIB)

$(VK_GEN)/%.spv.inc: $(VK_DIR)/shaders/%.comp $(VK_GLSL)
	@mkdir -p $(@D)
	$(GLSLC) --target-env=vulkan1.1 -mfmt=c -o $@ $<

# vk_shaders.c #includes the generated word lists
$(BUILD)/obj/$(VK_DIR)/vk_shaders.o: $(VK_SPV_INC)
$(BUILD)/obj/$(VK_DIR)/vk_shaders.o: CFLAGS += -I$(VK_GEN)

$(VK_EXPORTS): include/tierlab.h $(VK_DIR)/tierlab_vulkan.h
	@mkdir -p $(@D)
	cat $^ | sed -n 's/^TL_API[^(]*[ *]\(tl_[a-z0-9_]*\)(.*/\1/p' | sort > $@

$(VK_MAP): $(VK_EXPORTS)
	{ echo '{ global:'; sed 's/.*/  &;/' $<; echo 'local: *; };'; } > $@

$(VK_LIB): $(COMMON_OBJ) $(VK_OBJ) $(VK_MAP)
	$(CC) $(CFLAGS) -shared -Wl,--version-script=$(VK_MAP) -Wl,--no-undefined -o $@ \
	  $(COMMON_OBJ) $(VK_OBJ) $(VK_LDLIBS)

vulkan-check-exports: $(VK_LIB) $(VK_EXPORTS)
	@nm -D --defined-only $(VK_LIB) | awk '{print $$3}' | sort > $(VK_GEN)/exports.actual
	@diff -u $(VK_EXPORTS) $(VK_GEN)/exports.actual \
	  || { echo "vulkan exports differ from the headers"; exit 1; }

# The test links the objects itself (not the .so): it also drives the backend's vtable
# directly, to reach the arena's own cap below the dispatcher's charge.
$(VK_TEST): $(BUILD)/obj/tests/test_vulkan.o $(COMMON_OBJ) $(VK_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(VK_LDLIBS)

$(VK_BENCH): $(BUILD)/obj/tests/bench_vulkan_upload.o $(COMMON_OBJ) $(VK_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(VK_LDLIBS)

vulkan-test: $(VK_TEST) vulkan-check-exports
	./$(VK_TEST)

vulkan-test-validation: $(VK_TEST)
	env $(VK_LAYER_ENV) ./$(VK_TEST)
	env $(VK_SYNC_ENV) ./$(VK_TEST)

vulkan-bench: $(VK_BENCH)
	./$(VK_BENCH)

# The self-test of the CUDA backend uses only the public ABI: on Vulkan it checks groups
# over direct and staged uploads bit for bit, completions, the ledger and a faulted take.
VK_SELFTEST := $(BUILD)/vulkan_selftest
$(VK_SELFTEST): tests/cuda_selftest.c tests/expert_gen.c tests/expert_gen.h $(VK_LIB)
	$(CC) $(CFLAGS) -o $@ tests/cuda_selftest.c tests/expert_gen.c \
	  -L$(BUILD) -ltierlab_vulkan -Wl,-rpath,'$$ORIGIN' $(LDLIBS)

vulkan-selftest: $(VK_SELFTEST)
	./$(VK_SELFTEST) 1 --quick
	TIERLAB_PIN=0 ./$(VK_SELFTEST) 1 --small
	TIERLAB_VK_UPLOAD=mapped ./$(VK_SELFTEST) 1 --small
	env $(VK_SYNC_ENV) ./$(VK_SELFTEST) 1 --small

-include $(VK_OBJ:.o=.d) $(BUILD)/obj/tests/test_vulkan.d $(BUILD)/obj/tests/bench_vulkan_upload.d
