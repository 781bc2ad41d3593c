/*
 * tierlab native engine: the versioned C ABI.
 *
 * Role: the boundary between the TypeScript tier (through koffi) and the backends
 * (cpu, cuda, vulkan). Everything here is opaque handles, plain numbers and caller-owned
 * buffers. Invariants:
 *   - no function aborts the process: every failure is a status code plus a message
 *     written into the caller's `err` buffer (may be NULL; always NUL-terminated);
 *   - the dispatcher checks every argument before a backend sees it, so backends trust
 *     their input;
 *   - the math is pinned by native/MATH.md: expert outputs are bit-identical on every
 *     backend.
 * Field names cross the ABI unchanged: the binding (src/engine/native/binding.ts) and
 * the model use the same names.
 */
#ifndef TIERLAB_H
#define TIERLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump on any change of a signature, a struct or a meaning below.
 * 2: RAM copies, staging references, uploads from them with completions, the completion
 *    queue and its clock, tl_group_issue's tag, tl_expert_cpu_ram, tl_copy_bandwidth,
 *    tl_tensor_reserve.
 * 3: format 8 (fp8 e4m3 with 128x128 block scales); the dense trunk: tl_dense_quantize,
 *    tl_dense_cpu, tl_dense_matvec; tl_device_bytes.
 * 4: tl_group_stats. */
#define TL_ABI_VERSION 4u

#if defined(_WIN32)
#define TL_API __declspec(dllexport)
#else
#define TL_API __attribute__((visibility("default")))
#endif

typedef enum tl_status {
  TL_OK = 0,
  TL_E_ARG = 1, /* an argument is out of range or inconsistent */
  TL_E_OOM = 2, /* the device (or host) is genuinely out of memory */
  TL_E_DEVICE = 3, /* the device reported an error */
  TL_E_STATE = 4, /* wrong call order (take without issue, use after shutdown) */
  TL_E_UNSUPPORTED = 5, /* the backend does not do this (e.g. format on that backend) */
  TL_E_FAULT = 6, /* an injected fault fired (tests and oracle fault runs) */
  TL_E_INTERNAL = 7
} tl_status;

/* Weight formats, as in the protocol. */
enum { TL_FMT_I8_ROW = 1, TL_FMT_I4_ROW = 2, TL_FMT_I4_GROUP = 4, TL_FMT_FP8_BLOCK = 8 };
/* Format 8: one fp8 e4m3 byte per weight (the OCP "fn" encoding: no infinities, and
 * S.1111.111 is NaN, which every upload refuses), one float32 scale per block of
 * TL_FP8_BLOCK x TL_FP8_BLOCK weights (edge blocks may be smaller), row-major over the
 * block grid: scale[(row / 128) * ceil(cols / 128) + col / 128]. */
#define TL_FP8_BLOCK 128

/* Limits the dispatcher enforces. */
#define TL_MAX_DEVICES 8
#define TL_MAX_GROUP_ROWS 32 /* rows (experts) in one group per device */
/* A group's hidden size H and expert width F are at most these: backends size their
 * group buffers once, at engine creation, so the ledger's baseline never moves. */
#define TL_MAX_HIDDEN 8192
#define TL_MAX_WIDTH 8192
/* A tensor's rows and cols are at most this (dense residents may be wider than experts). */
#define TL_MAX_DIM (1 << 24)
#define TL_SILU_LUT_SIZE 1024 /* entries of the SiLU table (MATH.md) */

typedef struct tl_engine tl_engine; /* one backend instance over a device list */
typedef struct tl_tensor tl_tensor; /* one device tensor (weights + scales) */
typedef struct tl_ram tl_ram; /* one RAM copy: an expert's tensors in engine memory */
typedef struct tl_staging tl_staging; /* what an upload reads: a counted RAM reference */

TL_API uint32_t tl_abi_version(void);
/* "cpu", "cuda" or "vulkan": the backend this library was built with. */
TL_API const char *tl_backend_name(void);

/* devices: ids as the backend numbers them (cpu: any small ids, each a simulated device
 * with worker threads); capacity_bytes: 0 = the device's real memory, else a cap the
 * backend enforces (lets tests make a device "genuinely full"). */
TL_API int tl_engine_create(const int *devices, int ndevices, uint64_t capacity_bytes,
                            tl_engine **out, char *err, size_t err_cap);
TL_API int tl_engine_destroy(tl_engine *eng, char *err, size_t err_cap); /* safe on NULL */
TL_API int tl_device_count(tl_engine *eng, int *out, char *err, size_t err_cap);
/* dev is an index into the engine's device list (0..ndevices-1). */
TL_API int tl_mem_info(tl_engine *eng, int dev, uint64_t *free_bytes, uint64_t *total_bytes,
                       char *err, size_t err_cap);
/* 1 when freeing a tensor returns its memory (cuda, cpu); 0 for a fill-once arena (vulkan);
 * -1 when eng is not a live engine. */
TL_API int tl_reclaims(tl_engine *eng);
/* Bytes the device allocator really charges for one allocation of `bytes`
 * (the granularity rule of the protocol). Pure function:
 *   bytes > 1 MiB   -> rounded up to a multiple of 2 MiB;
 *   bytes > 512 KiB -> rounded up to a multiple of 1 MiB;
 *   otherwise       -> bytes + ceil(bytes / 16), rounded up to 8 KiB, at least 8 KiB.
 * Saturates at UINT64_MAX instead of wrapping. A tensor is charged
 * footprint(weight bytes) + footprint(scale bytes). When capacity_bytes > 0 the
 * dispatcher charges tensors against it and answers tl_mem_info from that charge. */
TL_API uint64_t tl_alloc_footprint(uint64_t bytes);

/* The SiLU table (TL_SILU_LUT_SIZE finite float32, MATH.md): must be set before the first
 * tl_group_issue; may be set again while no group is open on any device. The engine
 * keeps its own copy. */
TL_API int tl_engine_set_lut(tl_engine *eng, const float *lut, char *err, size_t err_cap);

/* Upload one tensor to device dev. data: packed weights (format rules in MATH.md),
 * scales: float32, nscales = rows (fmt 1, 2) or rows*cols/group (fmt 4).
 * group: 0 for formats 1 and 2; for format 4 a divisor of cols. Scales must be finite.
 * Upload and free may run on another thread than issue and take. A tensor that an open
 * group uses cannot be freed (TL_E_STATE) until that group is taken. */
TL_API int tl_tensor_upload(tl_engine *eng, int dev, int fmt, int rows, int cols, int group,
                            const void *data, size_t data_bytes, const float *scales,
                            size_t nscales, tl_tensor **out, char *err, size_t err_cap);
TL_API int tl_tensor_free(tl_engine *eng, tl_tensor *t, char *err, size_t err_cap);
/* Makes device memory for `bytes` of tensors on dev ready now, so the uploads that
 * follow allocate nothing from the driver (a warmstart that knows its size calls it
 * first). Not a charge: capacity accounting is unchanged; on a backend that answers
 * tl_mem_info from the driver, the reserved memory counts as used from now on. */
TL_API int tl_tensor_reserve(tl_engine *eng, int dev, uint64_t bytes, char *err, size_t err_cap);

/* Expert group on device dev: n rows, row r computes expert (gate[r], up[r], down[r])
 * on input x + r*hidden, asynchronously. At most one open group per device; at most
 * TL_MAX_GROUP_ROWS rows. The input is copied before the call returns. The tensors may
 * still be uploading (tl_tensor_upload_staged): the group runs after their bytes landed;
 * one whose upload failed is refused (TL_E_DEVICE). tag != 0: when the device has
 * finished the group, a TL_DONE_GROUP completion with this tag is queued (then
 * tl_group_take returns without waiting); tag 0 queues nothing. */
TL_API int tl_group_issue(tl_engine *eng, int dev, int n, tl_tensor *const *gate,
                          tl_tensor *const *up, tl_tensor *const *down, const float *x, int hidden,
                          uint64_t tag, char *err, size_t err_cap);
/* Waits for the device's open group and writes its n outputs (n*hidden float32,
 * row r = expert r's y). On failure y is left untouched and the group is closed. */
TL_API int tl_group_take(tl_engine *eng, int dev, float *y, int n, int hidden, char *err,
                         size_t err_cap);

/* Live device allocations of this engine (tensors and internal buffers): leak checks.
 * count = live tensors + the backend's internal buffers (fixed from creation on);
 * bytes = the tensors' footprints + the internal buffers' sizes. */
TL_API int tl_ledger(tl_engine *eng, uint64_t *count, uint64_t *bytes, char *err, size_t err_cap);

/* Groups issued so far, and of them those that read a tensor whose upload had not
 * landed (not yet reported by tl_upload_done) when the group opened: whether a run met
 * the situation a slow bus is for (a group waiting on the device for its weights). */
TL_API int tl_group_stats(tl_engine *eng, uint64_t *issued, uint64_t *met_uploads, char *err,
                          size_t err_cap);

/* Fault injection (tests and the oracle's fault runs): the next `after`-th call of the
 * named operation ("upload", "issue", "take") on device dev fails with TL_E_FAULT
 * (after = 0: the very next call). One-shot; arming again replaces the pending arm.
 * Calls count once their arguments have been checked. A faulted issue opens no group;
 * a faulted take waits for the group, discards it, closes it and leaves y untouched. */
TL_API int tl_fault_arm(tl_engine *eng, const char *op, int dev, int after, char *err,
                        size_t err_cap);

/* ---- RAM copies, staging and uploads from them -------------------------------------
 * The expert bytes live and move in native code: a RAM copy is read once from the model
 * file (or copied once from memory) into host memory the engine owns, page-locked where
 * the backend can use that (CUDA: cudaHostRegister; Vulkan: VK_EXT_external_memory_host),
 * and checked once (shapes, bounds, finite scales), so an upload neither copies nor
 * checks on the host again. Lifetimes are counted: a RAM copy's bytes stay until its
 * handle is freed AND no staging reference or upload in flight reads them; a freed
 * handle is refused at once (TL_E_ARG), whatever still holds its bytes. */

/* Tensors in one RAM copy, at most. */
#define TL_MAX_PARTS 4
/* One tensor of a RAM copy: its shape (as tl_tensor_upload takes it) and where its bytes
 * start in the source (file or memory). data_at and scales_at are multiples of 4. */
typedef struct tl_part {
  int32_t fmt, rows, cols, group;
  uint64_t data_at; /* packed weights: bytes as the shape rule says */
  uint64_t scales_at; /* float32 scales, little-endian */
} tl_part;

/* Reads nparts tensors (1..TL_MAX_PARTS) from the file at path (pread, native threads
 * of the caller's choosing: the call is thread-safe) into a new RAM copy. */
TL_API int tl_ram_load_file(tl_engine *eng, const char *path, const tl_part *parts, int nparts,
                            tl_ram **out, char *err, size_t err_cap);
/* The same from memory: src holds src_bytes bytes (the call copies what it needs). */
TL_API int tl_ram_load_mem(tl_engine *eng, const void *src, uint64_t src_bytes,
                           const tl_part *parts, int nparts, tl_ram **out, char *err,
                           size_t err_cap);
/* The handle dies now; the bytes when the last staging reference and upload are gone. */
TL_API int tl_ram_free(tl_engine *eng, tl_ram *ram, char *err, size_t err_cap);
/* copies: RAM copies whose bytes are held (live handles, or kept by a reference);
 * host_bytes: host memory the engine holds for RAM copies (in use or free for reuse);
 * pinned_bytes: the part of host_bytes the backend page-locked. */
TL_API int tl_ram_stats(tl_engine *eng, uint64_t *copies, uint64_t *host_bytes,
                        uint64_t *pinned_bytes, char *err, size_t err_cap);

/* A staging reference to a RAM copy (no byte is copied): the bytes an upload reads.
 * It keeps the RAM copy's bytes alive until tl_unstage, even past tl_ram_free. */
TL_API int tl_stage(tl_engine *eng, tl_ram *ram, tl_staging **out, char *err, size_t err_cap);
TL_API int tl_unstage(tl_engine *eng, tl_staging *s, char *err, size_t err_cap);

/* Uploads part `part` of the staged RAM copy to device dev, as tl_tensor_upload would,
 * but returns once the copy is on its way: the tensor is usable at once (a group that
 * uses it runs after its bytes landed), the staging reference may be dropped at once
 * (the upload keeps the bytes alive), and with tag != 0 a TL_DONE_UPLOAD completion is
 * queued when the bytes are on the device (or the copy failed: the tensor is then
 * refused by tl_group_issue, and can only be freed). Capacity, injected faults and
 * allocation failures are answered by this call, as tl_tensor_upload answers them. */
TL_API int tl_tensor_upload_staged(tl_engine *eng, int dev, tl_staging *src, int part, uint64_t tag,
                                   tl_tensor **out, char *err, size_t err_cap);

/* ---- Completions --------------------------------------------------------------------
 * A queue per engine of finished operations that asked for one (tag != 0), so a caller
 * can collect many completions in one call instead of one wait per operation. */
enum { TL_DONE_UPLOAD = 1, TL_DONE_GROUP = 2 };
#define TL_COMPLETION_MESSAGE 176
typedef struct tl_completion {
  uint64_t tag;
  uint64_t done_ns; /* tl_clock_ns() when the engine saw the operation finish */
  int32_t kind; /* TL_DONE_UPLOAD or TL_DONE_GROUP */
  int32_t status; /* tl_status of the operation */
  int32_t dev; /* device index */
  int32_t unused; /* 0 */
  char message[TL_COMPLETION_MESSAGE]; /* "" on success, else why (NUL-terminated) */
} tl_completion;

/* The engine's clock (CLOCK_MONOTONIC, nanoseconds): what done_ns is measured on. */
TL_API uint64_t tl_clock_ns(void);

/* Moves up to max queued completions to out (oldest first) without waiting; *n says how
 * many. */
TL_API int tl_completions_take(tl_engine *eng, tl_completion *out, int max, int *n, char *err,
                               size_t err_cap);
/* Waits until at least min_ready (>= 1) completions are queued or timeout_ms (0..60000)
 * passed; *ready says how many are queued. One wake for a batch: a caller that needs n
 * results asks for n. Returns TL_E_STATE at once when the engine is being destroyed. */
TL_API int tl_completions_wait(tl_engine *eng, int min_ready, int timeout_ms, int *ready, char *err,
                               size_t err_cap);

/* One expert on the host from a RAM copy whose parts 0, 1, 2 are gate, up, down, with the
 * engine's SiLU table (tl_expert_cpu's math, bit for bit). x: hidden floats (finite). */
TL_API int tl_expert_cpu_ram(tl_engine *eng, tl_ram *ram, const float *x, float *y, char *err,
                             size_t err_cap);

/* The backend's plainest host-to-device copy of `bytes` bytes, reps times after one
 * warm-up, from page-locked (pinned 1) or ordinary (pinned 0) host memory, as the same
 * library does it (cuda: cudaMemcpy; vulkan: vkCmdCopyBuffer from a host-visible
 * buffer, or memcpy into one first; cpu: memcpy). *gbps: bytes * reps / seconds / 1e9. */
TL_API int tl_copy_bandwidth(tl_engine *eng, int dev, uint64_t bytes, int reps, int pinned,
                             double *gbps, char *err, size_t err_cap);

/* ---- The dense trunk (MATH.md "The int8 trunk") ----------------------------------
 * Dense matrices (attention projections, router, lm_head) are quantized once to int8
 * per row with power-of-two row scales (tl_dense_quantize), then computed either on the
 * host (tl_dense_cpu) or, uploaded as a format-1 tensor, on a device (tl_dense_matvec):
 * both give the same bits. */

/* A dense GEMV on a device has at most this many output rows (its buffers are sized
 * once, at engine creation, like the groups'); its cols are at most TL_MAX_HIDDEN. */
#define TL_MAX_DENSE_ROWS 65536

/* Quantizes w [rows][cols] (finite float32, row-major W[out][in]) row by row with quant's
 * rule: q (rows * cols int8) and scales (rows floats, each 2^e of its row). */
TL_API int tl_dense_quantize(const float *w, int rows, int cols, int8_t *q, float *scales,
                             char *err, size_t err_cap);
/* y = W x on the host from tl_dense_quantize's q and scales; x finite (cols floats). */
TL_API int tl_dense_cpu(const int8_t *q, const float *scales, int rows, int cols, const float *x,
                        float *y, char *err, size_t err_cap);
/* y = W x on device dev, W a format-1 tensor there (rows <= TL_MAX_DENSE_ROWS, cols <=
 * TL_MAX_HIDDEN), bit-identical to tl_dense_cpu. Returns with y written. It uses the
 * device's own dense input and output buffers, never a group's: it may run while a
 * group is open on dev (that is the point). One dense GEMV at a time per device; a
 * tensor cannot be freed while a GEMV reads it (TL_E_STATE). */
TL_API int tl_dense_matvec(tl_engine *eng, int dev, tl_tensor *w, const float *x, float *y,
                           char *err, size_t err_cap);

/* Device memory the backend holds for tensors on dev, as the backend itself counts it
 * (cpu: footprints; cuda: tensor blocks; vulkan: arena slices, which a free never gives
 * back). The oracle compares it with the tier's budget. */
TL_API int tl_device_bytes(tl_engine *eng, int dev, uint64_t *bytes, char *err, size_t err_cap);

/* ---- CPU math shared by every run (no engine needed) ---------------------------- */

/* One expert on the host, from RAM weights (MATH.md "expert"). lut: 1024 floats.
 * Same argument rules as an upload plus a group (group 0 for formats 1 and 2); x finite. */
TL_API int tl_expert_cpu(int fmt, int hidden, int width, int group, const void *gate,
                         const float *gate_s, const void *up, const float *up_s, const void *down,
                         const float *down_s, const float *lut, const float *x, float *y, char *err,
                         size_t err_cap);

/* The void trunk functions below do nothing when a pointer is NULL or a size is < 1. */
/* y[r] = sum_j W[r][j] x[j] in order (float32). */
TL_API void tl_matvec_f32(const float *w, const float *x, int rows, int cols, float *y);
TL_API void tl_rmsnorm(const float *x, const float *w, int n, float *out);
/* One attention step for one layer: writes k, v at position pos of the caches
 * (cache layout [pos][hidden]) and the attention output o (float32[hidden]). */
TL_API void tl_attention(const float *q, const float *k, const float *v, float *kcache,
                         float *vcache, int pos, int hidden, int heads, float *o);
/* Route: the k largest logits (ties: lower id), softmax weights in route order. */
TL_API int tl_route(const float *logits, int experts, int k, int *ids, float *weights, char *err,
                    size_t err_cap);
/* acc[i] = acc[i] + w * y[i], float32, no contraction. */
TL_API void tl_axpy(float *acc, float w, const float *y, int n);
/* Index of the largest value, ties: lowest index; NaN never wins over an earlier value;
 * -1 when v is NULL or n < 1. */
TL_API int tl_argmax(const float *v, int n);

#ifdef __cplusplus
}
#endif
#endif /* TIERLAB_H */
