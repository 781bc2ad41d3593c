/*
 * Vulkan backend: the compute shaders as SPIR-V words, embedded in the library.
 *
 * Role: vulkan.mk compiles shaders/<name>.comp with glslc -mfmt=c into
 * $(BUILD)/vulkan/<name>.spv.inc (a brace-enclosed list of 32-bit words) before this
 * file is compiled. Embedding, rather than loading .spv files next to the .so, keeps
 * the library one self-contained file: koffi loads it from wherever the build (or the
 * GPU machine's copy) put it, with no path lookup that could pick up stale shaders.
 * No SPIR-V binary is committed; the words are regenerated on every shader change.
 */
#include <stddef.h>
#include <stdint.h>

const uint32_t vk_spv_quant[] =
#include "quant.spv.inc"
    ;
const uint32_t vk_spv_gateup[] =
#include "gateup.spv.inc"
    ;
const uint32_t vk_spv_down[] =
#include "down.spv.inc"
    ;

const uint32_t vk_spv_dense[] =
#include "dense.spv.inc"
    ;

const size_t vk_spv_quant_size = sizeof vk_spv_quant;
const size_t vk_spv_gateup_size = sizeof vk_spv_gateup;
const size_t vk_spv_down_size = sizeof vk_spv_down;
const size_t vk_spv_dense_size = sizeof vk_spv_dense;
