/*
 * The C tier over the native engine's public C ABI (include/tierlab.h): the same tier
 * runs on the CPU, CUDA and Vulkan libraries, whichever the tier library is linked with.
 *
 * Role: an adapter, the shape a tier author writes when their backend's calls have other
 * names. It mirrors how the TypeScript tier's real world drives the engine
 * (src/engine/native/real_world.ts, real_transfers.ts): a staging copy is a counted
 * reference to the engine's RAM copy (tl_stage), an upload starts the copy and returns
 * the tensor at once (tl_tensor_upload_staged; a group that reads it runs after its bytes
 * landed), groups are tl_group_issue / tl_group_take, trunk matrices are int8 rows
 * (tl_tensor_upload format 1, tl_dense_matvec on the dense path's own buffers).
 * Conventions: the `ram` the engine lends the tier (tt_note, tt_note_planned) is a
 * tl_ram *; a trunk offer's `data` is rows x cols int8 and `scales` rows floats.
 * Every failed engine call is counted, its message kept, and logged as a be_call event.
 */
#ifndef TT_ENGINE_BACKEND_H
#define TT_ENGINE_BACKEND_H

#include <stdatomic.h>

#include "../include/tierlab.h"
#include "tt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tt_engine_backend {
  tl_engine *eng;
  tt_log *log;
  atomic_uint_fast64_t calls, failures;
  char first_failure[256]; /* written once, by the first failing call */
  atomic_int failed_once;
} tt_engine_backend;

/* Fills *out with the adapter over eng (which must outlive the tier). 0, or -1 when eng
 * is not a live engine (eb->first_failure says why). */
TT_API int tt_engine_backend_init(tt_engine_backend *eb, tl_engine *eng, tt_log *log,
                                  tt_backend *out);

#ifdef __cplusplus
}
#endif
#endif
