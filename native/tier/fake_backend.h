/*
 * The fake backend: a tt_backend that holds no device, keeps a ledger of everything the
 * tier asks of it, and lets tests inject faults and delays.
 *
 * Role: the C tier's test world (and the scheduler's later). The ledger records every
 * allocation (device tensors, trunk tensors, staging copies, host arrays, lent RAM
 * copies), every free and every group, and detects what a real backend would corrupt
 * silently: a double free, a use after free (an upload from a freed staging copy, a
 * group over a freed tensor, a staging copy of a freed RAM copy), a free of a tensor an
 * open group reads, a staging copy of the wrong expert's bytes, a second group on a
 * busy device. Each is a violation: counted, the first one's text kept, and an event.
 * Injectors never check, checkers never inject: faults come only from fb_arm and the
 * hook; the ledger only records.
 * Invariants: handles stay valid memory until fb_destroy (or fb_reclaim_dead), so a
 * faulty tier's use after free is detected, never undefined behaviour; every entry takes
 * the fake's own mutex only around its bookkeeping and calls the hook outside it.
 * Outputs are computed from what the tensors hold: row r of a group is
 * y = x * (eid + 1) + layer / 4 for the expert whose bytes the gate tensor holds.
 */
#ifndef FAKE_BACKEND_H
#define FAKE_BACKEND_H

#include "tt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Backend entry points, as the hook and fb_arm name them: the log's TT_OP_* numbers. */
enum {
  FB_UPLOAD = TT_OP_UPLOAD,
  FB_FREE = TT_OP_FREE,
  FB_STAGE = TT_OP_STAGE,
  FB_UNSTAGE = TT_OP_UNSTAGE,
  FB_ISSUE = TT_OP_ISSUE,
  FB_TAKE = TT_OP_TAKE,
  FB_MEM_INFO = TT_OP_MEM_INFO,
  FB_DENSE_UPLOAD = TT_OP_DENSE_UPLOAD,
  FB_DENSE_GEMV = TT_OP_DENSE_GEMV,
  FB_HOST_ALLOC = TT_OP_HOST_ALLOC,
  FB_HOST_FREE = TT_OP_HOST_FREE,
  FB_SYNC_INIT = TT_OP_SYNC_INIT,
  FB_THREAD_START = TT_OP_THREAD_START,
  FB_SHUTDOWN = TT_OP_SHUTDOWN,
  FB_SITE_COUNT = TT_OP_COUNT
};

typedef struct fb_config {
  int devices; /* 1..TT_MAX_DEVICES */
  int reclaims; /* 0: a fill-once arena (a free gives nothing back) */
  uint64_t capacity[TT_MAX_DEVICES]; /* bytes per device; 0: 1 TiB */
  uint64_t weight_bytes[3], scale_bytes[3]; /* an expert part's payload (charged rounded) */
} fb_config;

/* Called at every backend entry, outside the fake's lock, before the call does anything:
 * site (FB_*), nth (calls of that site before this one), dev (-1 when none). Nonzero
 * fails the call where the site can fail. A stress test sleeps here; a scheduler puts a
 * scheduling point here; a test forces an order by waiting here for a step of its own. */
typedef int (*fb_hook)(void *arg, int site, uint64_t nth, int dev);

typedef struct fb_ledger {
  uint64_t tensors_live, dense_live, staging_live, host_live, ram_live;
  uint64_t held[TT_MAX_DEVICES]; /* device bytes the fake holds (a fill-once arena keeps freed) */
  uint64_t uploads, upload_failures, frees, stages, unstages, issues, takes, groups_open;
  uint64_t dense_uploads, gemvs, shutdowns, faults;
  uint64_t violations, double_frees, use_after_free, free_in_group, wrong_bytes;
  char first_violation[200];
} fb_ledger;

typedef struct fb_fake fb_fake;

/* NULL when cfg is unusable or memory runs out. log may be NULL. */
TT_API fb_fake *fb_create(const fb_config *cfg, tt_log *log);
TT_API void fb_destroy(fb_fake *f);
/* The tt_backend over this fake (every slot set). */
TT_API void fb_backend(fb_fake *f, tt_backend *out);
TT_API void fb_set_hook(fb_fake *f, fb_hook hook, void *arg);
/* One-shot fault: the call of `site` whose nth is `nth` fails (replaces an earlier arm). */
TT_API void fb_arm(fb_fake *f, int site, uint64_t nth);
TT_API void fb_disarm(fb_fake *f, int site);
/* A RAM copy of expert (layer, eid) the engine lends the tier; NULL out of memory. */
TT_API void *fb_ram_new(fb_fake *f, int layer, int eid);
TT_API void fb_ram_free(fb_fake *f, void *ram);
TT_API void fb_ledger_get(fb_fake *f, fb_ledger *out);
/* Drops the records of dead objects (call when no handle of the tier is outstanding). */
TT_API void fb_reclaim_dead(fb_fake *f);
/* The output row the fake computes for an expert: y[h] = x[h] * (eid + 1) + layer / 4. */
TT_API void fb_expert_output(int layer, int eid, const float *x, float *y, int hidden);
/* The trunk GEMV it computes for trunk id `index`: y[r] = x[r % cols] * (index + 1). */
TT_API void fb_dense_output(int index, int rows, int cols, const float *x, float *y);

#ifdef __cplusplus
}
#endif
#endif
