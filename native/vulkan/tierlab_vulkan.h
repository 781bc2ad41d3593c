/*
 * tierlab native engine: what only the Vulkan library exports, beside tierlab.h.
 *
 * Role: symbols a caller looks up by name when the library is the Vulkan build
 * (the TypeScript binding calls them only if the symbol exists). ABI-neutral: adding
 * one does not change TL_ABI_VERSION, and the other backends do not define them.
 *
 * Environment read by the Vulkan backend (at tl_engine_create):
 *   TIERLAB_VK_UPLOAD=staged|mapped  how tensors reach the arena (default staged)
 *   TIERLAB_VK_VALIDATION=1|sync     ask for VK_LAYER_KHRONOS_validation and count its
 *                                    messages ("sync" adds synchronization validation)
 */
#ifndef TIERLAB_VULKAN_H
#define TIERLAB_VULKAN_H

#include "../include/tierlab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Warnings and errors the validation layer (or loader) reported to this process's
 * debug messenger since the library was loaded; 0 when TIERLAB_VK_VALIDATION is unset.
 * A clean run reads 0 after every engine is destroyed (leaks are reported then). */
TL_API int tl_vk_validation_messages(void);

#ifdef __cplusplus
}
#endif
#endif
