/*
 * Vulkan backend: the state shared by the files of native/vulkan/.
 *
 * Role: one `struct tl_backend` per engine, driving exactly one VkDevice with one
 * compute queue. The pieces, one file each:
 *   vk_device.c    instance, debug messenger hookup, device pick, memory budget
 *   vk_memory.c    memory-type choice and plain buffers (internal allocations)
 *   vk_arena.c     the fill-once weight arena (never reclaims a slice)
 *   vk_upload.c    tensor upload (staged or mapped) and free
 *   vk_pipeline.c  shader modules, layouts, pipelines, descriptor pools
 *   vk_group.c     expert group issue / take
 *   vk_dense.c     the dense GEMV, with its own buffers, command buffer and fence
 *   vk_backend.c   the tl_backend_impl vtable, init, shutdown, mem_info, ledger
 *   vk_validation.c the debug-utils messenger and its message counter
 *   vk_delay.c     a slow bus or device on purpose (the oracle's slow runs)
 *   vk_lanes.c     upload lanes in flight, and the threads that report uploads and groups
 *   vk_import.c    RAM pool chunks imported as host memory (VK_EXT_external_memory_host)
 *   vk_bandwidth.c tl_copy_bandwidth's raw copies
 *
 * Locking (uploads may run on a worker thread while the decode thread issues groups):
 *   up_mx  serializes uploads: the staging buffer and the upload command buffer;
 *   mx     guards the arena, the ledger, descriptor pools, the LUT copy, the
 *          group's in-flight flag and every use of the queue (vkQueueSubmit and
 *          vkQueueWaitIdle need the queue externally synchronized).
 *   reap_mx guards the lanes' occupants and the group reaper's state (vk_lanes.c).
 *   Order: up_mx before mx and before reap_mx; never wait on a fence while holding mx.
 */
#ifndef TIERLAB_VK_INTERNAL_H
#define TIERLAB_VK_INTERNAL_H

#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "../src/backend.h"

#define VK_LUT_ENTRIES TL_SILU_LUT_SIZE
/* Arena chunks are allocated on demand in this size (larger for a larger tensor),
 * capped by what is left of the limit. */
#define VK_ARENA_CHUNK_BYTES (64ull << 20)
/* Host staging buffer for staged uploads; bigger tensors go through in pieces. */
#define VK_STAGING_BYTES (16ull << 20)
/* Workgroup width of every shader (local_size_x in the shaders). */
#define VK_WG 64u
/* Descriptor sets per tensor pool: pools are added as tensors arrive. */
#define VK_TENSOR_POOL_SETS 256u
/* Uploads from RAM copies in flight at once, each on its own lane (command buffer,
 * fence, and a staging slice for RAM that could not be imported): TIERLAB_VK_LANES,
 * 1..VK_UPLOAD_LANES_MAX, default VK_UPLOAD_LANES. Small tensors need many in flight:
 * each lane's round trip (submit, fence, reaper, free) costs more than its copy. */
#define VK_UPLOAD_LANES 4
#define VK_UPLOAD_LANES_MAX 64
/* Uploads one lane carries in one submission: a submission costs the device about as
 * much as copying a 1 MiB tensor, so small tensors travel in batches (vk_lanes.c). */
#define VK_LANE_BATCH 16
/* A lane is submitted at once while fewer lanes than this are in flight (the queue would
 * run dry), else it collects uploads until the reaper sees the queue this low. */
#define VK_LANE_LOW_WATER 2
#define VK_LANE_STAGING_BYTES (4ull << 20)

enum { VK_UPLOAD_STAGED = 0, VK_UPLOAD_MAPPED = 1 };

/* One buffer with its own memory: the internal allocations (staging, group io and
 * scratch). Counted in the ledger while live. */
typedef struct vk_buf {
  VkBuffer buf;
  VkDeviceMemory mem;
  VkDeviceSize size;
  void *map; /* persistent mapping when host-visible, else NULL */
  int counted; /* in the ledger (vk_buf_uncount takes a scratch buffer out) */
} vk_buf;

/* A RAM pool chunk imported as host memory, with a transfer-source buffer over it. */
typedef struct vk_import {
  VkBuffer buf;
  VkDeviceMemory mem;
} vk_import;

/* A batch of uploads, recorded (open, up_mx) then submitted (in flight, reap_mx): t[0..n)
 * are the tensors whose copies the lane's fence guards, n 0 when the lane is free or
 * still open. Lanes are opened, submitted and reaped in ring order. */
typedef struct vk_lane {
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkEvent delay; /* a slow bus on purpose only (vk_delay.c) */
  vk_buf staging;
  tl_tensor *t[VK_LANE_BATCH];
  int recorded; /* up_mx, while open: copies recorded, t[0..recorded) */
  VkDeviceSize staged; /* up_mx, while open: staging bytes used */
  /* up_mx, while open: the last copy region, not yet in cmd, so that the next one joins
   * it where it continues it on both sides (vk_lane_copy) */
  VkBuffer held_src, held_dst;
  VkBufferCopy held;
  int holding;
  int n; /* reap_mx: uploads in flight on this lane */
} vk_lane;

/* One arena chunk: a device-local buffer carved bottom-up and never given back. */
typedef struct vk_chunk {
  VkBuffer buf;
  VkDeviceMemory mem;
  VkDeviceSize size, top; /* [0, top) handed out; [top, size) free tail */
  void *map; /* mapped upload mode only */
  int filled; /* vkCmdFillBuffer done once (see vk_upload.c) */
} vk_chunk;

typedef struct vk_arena {
  vk_chunk *chunks;
  int nchunks, cap_chunks;
  uint32_t mem_type;
  VkDeviceSize limit; /* bytes the arena may ever allocate (cap and budget) */
  VkDeviceSize reserved; /* sum of chunk sizes */
  VkDeviceSize align; /* slice alignment: storage-buffer offset rule */
  uint64_t slices, slice_bytes; /* handed out so far; a free does not lower them */
} vk_arena;

/* Backend state of one tensor (tl_tensor.impl). */
typedef struct vk_tensor {
  int chunk;
  VkDeviceSize w_off, w_size; /* weights, padded to whole 32-bit words */
  VkDeviceSize s_off, s_size; /* float32 scales */
  VkDescriptorSet set; /* binding 0: weights as uint[], 1: scales */
  int pool; /* index of the pool that owns set */
} vk_tensor;

typedef struct vk_pool {
  VkDescriptorPool pool;
  uint32_t used;
} vk_pool;

/* The expert group of the (single) device: its own io and scratch buffers, sized once
 * at init for TL_MAX_HIDDEN x TL_MAX_WIDTH (so the ledger never moves), one descriptor
 * set per row over disjoint row ranges, a command buffer and a fence. */
typedef struct vk_group {
  VkDeviceSize row_h, row_f; /* per-row strides of the H- and F-sized regions */
  VkDeviceSize off_y, off_lut; /* inside io: x rows at 0, y rows, then the LUT */
  VkDeviceSize off_h, off_qh, off_ex, off_eh; /* inside scratch (qx rows at 0) */
  vk_buf io; /* host-visible: x in, y out, lut */
  vk_buf scratch; /* device-local: qx, h, qh, ex, eh */
  int needs_fill; /* fresh scratch: filled once by the first command buffer */
  VkDescriptorSet rows[TL_MAX_GROUP_ROWS];
  VkCommandPool cmd_pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkEvent delay; /* a slow device on purpose only (vk_delay.c) */
  int inflight; /* submitted, not yet taken (mx) */
  int n, hidden;
  unsigned lut_gen; /* LUT generation copied into io */
} vk_group;

/* The dense GEMV's own io (input codes as int32 at 0, outputs at off_y), descriptor set
 * (a set-0 set over that io, never over the group's buffers), command buffer and fence. */
typedef struct vk_dense {
  vk_buf io;
  VkDeviceSize off_y;
  VkDescriptorSet set;
  VkCommandPool cmd_pool;
  VkCommandBuffer cmd;
  VkFence fence;
} vk_dense;

/* vk_delay.c's timer: events to set, each when its delay has passed */
#define VK_DELAY_ITEMS (4 * (VK_UPLOAD_LANES_MAX + 1))
typedef struct vk_delay_item {
  VkEvent ev;
  struct timespec due; /* CLOCK_MONOTONIC */
} vk_delay_item;
typedef struct vk_delayer {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  vk_delay_item items[VK_DELAY_ITEMS]; /* mu: in submission order */
  int n, stop, ok;
} vk_delayer;

struct tl_backend {
  tl_engine *owner;
  VkInstance inst;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  VkDevice dev;
  VkQueue queue;
  uint32_t qfam;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mprops;
  int has_budget_ext;
  int has_host_import; /* VK_EXT_external_memory_host enabled */
  VkDeviceSize import_align;
  PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_props;

  pthread_mutex_t mx, up_mx;
  int mx_ok, up_mx_ok;

  int upload_mode; /* VK_UPLOAD_STAGED or VK_UPLOAD_MAPPED */
  vk_arena arena;

  /* staged uploads (up_mx) */
  vk_buf staging;
  VkCommandPool up_pool;
  VkCommandBuffer up_cmd;
  VkFence up_fence;
  int copy_threads; /* mapped uploads: host threads writing (par_copy.h) */
  long copy_delay_us, group_delay_us; /* a slow bus or device on purpose (vk_delay.c) */
  vk_delayer delayer;

  /* uploads from RAM copies in flight, and the threads reporting them (vk_lanes.c) */
  vk_lane lanes[VK_UPLOAD_LANES_MAX];
  int nlanes; /* lanes in use, fixed at init (TIERLAB_VK_LANES) */
  int lane_next; /* up_mx: the next lane to open, or the open one */
  int lane_open; /* up_mx: lane_next is recording and not yet submitted */
  int lane_reap; /* reap_mx: the next lane the reaper waits for */
  int lanes_in_flight; /* reap_mx */
  pthread_mutex_t reap_mx;
  pthread_cond_t reap_cv; /* a lane filled or freed; a group issued or reported */
  int reap_ok, reap_stop;
  pthread_t lane_thread, group_thread;
  int lane_thread_ok, group_thread_ok;
  int group_pending; /* reap_mx: a group submitted and not yet reported */
  uint64_t group_tag;

  /* pipelines */
  VkShaderModule mod_quant, mod_gateup, mod_down, mod_dense;
  VkDescriptorSetLayout row_layout, tensor_layout;
  VkPipelineLayout layout;
  VkPipeline quant_x, quant_h, gateup, down, dense_pipe;
  VkDescriptorPool row_pool;
  vk_pool *pools;
  int npools;

  vk_group group;
  vk_dense dense;

  float lut[VK_LUT_ENTRIES];
  unsigned lut_gen; /* 0: no table yet */

  uint64_t int_count, int_bytes; /* live internal allocations (ledger) */
};

/* Push constants of every pipeline (matches `Push` in shaders/common.glsl). */
typedef struct vk_push {
  int32_t fmt_a, rows_a, cols_a, group_a; /* set 1 tensor */
  int32_t fmt_b, rows_b, cols_b, group_b; /* set 2 tensor (gate/up stage only) */
  int32_t n; /* quant: number of values */
} vk_push;

/* vk_device.c */
int vk_device_open(tl_backend *b, int index, char *err, size_t cap);
VkDeviceSize vk_device_budget(tl_backend *b, uint32_t heap, int *from_ext);

/* vk_errors.c */
const char *vk_result_str(VkResult r);

/* vk_validation.c */
int vk_validation_requested(void); /* 0 off, 1 core, 2 core + synchronization */
void vk_validation_chain(VkDebugUtilsMessengerCreateInfoEXT *ci);
int vk_validation_install(tl_backend *b, char *err, size_t cap);

/* vk_delay.c: a slow bus or device on purpose */
long vk_delay_from_env(const char *name);
int vk_delay_event_create(tl_backend *b, const char *what, VkEvent *ev, char *err, size_t cap);
void vk_delay_record(tl_backend *b, VkCommandBuffer cmd, VkEvent ev);
int vk_delay_arm(tl_backend *b, VkEvent ev, char *err, size_t cap);
void vk_delay_schedule(tl_backend *b, VkEvent ev, long us);
int vk_delay_start(tl_backend *b, char *err, size_t cap);
void vk_delay_stop(tl_backend *b);
void vk_validation_remove(tl_backend *b);

/* vk_memory.c */
int vk_find_type(tl_backend *b, uint32_t bits, VkMemoryPropertyFlags want,
                 VkMemoryPropertyFlags avoid);
/* memory type: one with `want` and none of `avoid`, else one with `fallback` */
int vk_buf_create(tl_backend *b, VkDeviceSize size, VkBufferUsageFlags usage,
                  VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid,
                  VkMemoryPropertyFlags fallback, vk_buf *out, char *err, size_t cap);
void vk_buf_destroy(tl_backend *b, vk_buf *buf);
/* A scratch buffer (tl_copy_bandwidth) leaves the ledger, which stays fixed after init. */
void vk_buf_uncount(tl_backend *b, vk_buf *buf);
VkDeviceSize vk_align(VkDeviceSize v, VkDeviceSize a);

/* vk_arena.c */
int vk_arena_init(tl_backend *b, uint64_t capacity_bytes, char *err, size_t cap);
int vk_arena_reserve(tl_backend *b, VkDeviceSize w_size, VkDeviceSize s_size, vk_tensor *t,
                     char *err, size_t cap);
VkDeviceSize vk_arena_free_bytes(const vk_arena *a);
/* mx held: chunks made until their free tails hold `bytes` (or the limit is reached) */
int vk_arena_grow(tl_backend *b, VkDeviceSize bytes, char *err, size_t cap);
void vk_arena_destroy(tl_backend *b);

/* vk_upload.c */
/* VK_UPLOAD_STAGED or VK_UPLOAD_MAPPED, or minus a tl_status when the value is bad */
int vk_upload_mode_from_env(char *err, size_t cap);
int vk_lanes_from_env(char *err, size_t cap); /* the lane count, or -TL_E_ARG */
/* vk_commands.c: a command pool, one command buffer and a fence */
int vk_lane_create(tl_backend *b, const char *what, VkCommandPool *pool, VkCommandBuffer *cmd,
                   VkFence *fence, char *err, size_t cap);
/* transfer writes submitted before -> shader reads after (first in a reader's commands) */
void vk_uploads_visible(VkCommandBuffer cmd);
/* ends cmd, resets fence, arms delay (VK_NULL_HANDLE: none) and submits under mx */
int vk_submit(tl_backend *b, VkCommandBuffer cmd, VkFence fence, VkEvent delay, const char *what,
              char *err, size_t cap);
int vk_upload_init(tl_backend *b, char *err, size_t cap);
int vk_tensor_upload(tl_backend *b, tl_tensor *t, const void *data, size_t data_bytes,
                     const float *scales, size_t nscales, char *err, size_t cap);
int vk_tensor_upload_async(tl_backend *b, tl_tensor *t, const tl_host_src *src, char *err,
                           size_t cap);
int vk_tensor_reserve(tl_backend *b, int dev, uint64_t bytes, char *err, size_t cap);
void vk_tensor_free(tl_backend *b, tl_tensor *t);
void vk_upload_destroy(tl_backend *b);

/* vk_pipeline.c */
int vk_pipeline_create(tl_backend *b, char *err, size_t cap);
/* both with mx held: descriptor pools are externally synchronized */
int vk_tensor_set_alloc(tl_backend *b, vk_tensor *t, VkBuffer buf, char *err, size_t cap);
void vk_tensor_set_release(tl_backend *b, vk_tensor *t);
void vk_pipeline_destroy(tl_backend *b);

/* vk_group.c */
int vk_group_init(tl_backend *b, char *err, size_t cap);
int vk_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                   tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                   size_t cap);
int vk_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap);
void vk_group_destroy(tl_backend *b);

/* vk_dense.c */
int vk_dense_init(tl_backend *b, char *err, size_t cap); /* after vk_pipeline_create */
int vk_dense_matvec(tl_backend *b, int dev, const tl_tensor *w, const int8_t *qx, int e, float *y,
                    char *err, size_t cap);
uint64_t vk_device_bytes(tl_backend *b, int dev);
void vk_dense_destroy(tl_backend *b);
/* vk_lanes.c */
int vk_lanes_init(tl_backend *b, char *err, size_t cap); /* lanes and both threads */
void vk_lanes_stop(tl_backend *b); /* reports what is pending, joins the threads */
void vk_lanes_destroy(tl_backend *b);
/* up_mx held: the open lane with room for one more upload of `staging` bytes (0: from
 * imported memory), opening one (waiting for it to be free) when needed */
int vk_lane_open(tl_backend *b, VkDeviceSize staging, vk_lane **out, char *err, size_t cap);
/* up_mx held: submits the open lane now, or when due (full, or the queue running low);
 * on a failed submission every upload of the batch but `mine` is reported failed */
int vk_lane_flush(tl_backend *b, const tl_tensor *mine, char *err, size_t cap);
int vk_lane_flush_when_due(tl_backend *b, const tl_tensor *mine, char *err, size_t cap);
/* up_mx held, lane open: records the copy of region r from src to dst, joined to the
 * copy before it where r continues that copy in both buffers; vk_lane_copies_out puts
 * a held copy into the command buffer (before any other command, and before submission) */
void vk_lane_copy(vk_lane *lane, VkBuffer src, VkBuffer dst, VkBufferCopy r);
void vk_lane_copies_out(vk_lane *lane);
/* takes up_mx: submits the open lane, so that a reader submitted next on the queue comes
 * after every upload called before it (the engine relies on the queue's order) */
int vk_lanes_submit_open(tl_backend *b, char *err, size_t cap);
void vk_group_reaped_wait(tl_backend *b); /* before the group fence is reset */
void vk_group_submitted(tl_backend *b, uint64_t tag);

/* vk_import.c */
int vk_host_register(tl_backend *b, void *p, size_t bytes, void **pin, char *err, size_t cap);
void vk_host_unregister(tl_backend *b, void *pin);

/* vk_bandwidth.c */
int vk_copy_bandwidth(tl_backend *b, int dev, uint64_t bytes, int reps, int pinned, double *gbps,
                      char *err, size_t cap);

/* vk_shaders.c: SPIR-V compiled from the .comp shaders at build time */
extern const uint32_t vk_spv_quant[], vk_spv_gateup[], vk_spv_down[], vk_spv_dense[];
extern const size_t vk_spv_quant_size, vk_spv_gateup_size, vk_spv_down_size, vk_spv_dense_size;

#endif
