/*
 * RAM copies and staging references: loads from memory and from a file check what an
 * upload would (shapes, bounds, finite scales) and say which part is wrong; a freed
 * handle is refused while a staging reference still keeps its bytes; the bytes go back
 * exactly when the last count goes; tl_expert_cpu_ram is tl_expert_cpu bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_fixture.h"
#include "harness.h"

#define H 32
#define F 64

static uint64_t copies_of(tl_engine *eng) {
  char err[ERR_CAP];
  uint64_t copies = 0, host = 0, pinned = 0;
  CHECK_CODE(tl_ram_stats(eng, &copies, &host, &pinned, err, sizeof err), TL_OK);
  CHECK(pinned == 0); /* the CPU backend page-locks nothing */
  return copies;
}

static void load_checks(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  uint64_t rng = 5;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_GROUP, H, F, 8) != 0) return;
  unsigned char *buf;
  size_t bytes;
  tl_part parts[3];
  if (tg_expert_pack(&e, &buf, &bytes, parts) != 0) return;
  tl_ram *ram = (tl_ram *)&err;
  CHECK_CODE(tl_ram_load_mem(NULL, buf, bytes, parts, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK(ram == NULL);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 3, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_ram_load_mem(eng, NULL, bytes, parts, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, NULL, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 0, &ram, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, TL_MAX_PARTS + 1, &ram, err, sizeof err),
             TL_E_ARG);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes - 4, parts, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "part 2: scales") != NULL && strstr(err, "past the source") != NULL);
  tl_part bad[3];
  memcpy(bad, parts, sizeof bad);
  bad[1].group = 7; /* does not divide cols */
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, bad, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "part 1") != NULL);
  memcpy(bad, parts, sizeof bad);
  bad[0].data_at = 2;
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, bad, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "multiples of 4") != NULL);
  memcpy(bad, parts, sizeof bad);
  bad[0].data_at = bytes; /* past the end, and no wrap-around in the bounds check */
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, bad, 3, &ram, err, sizeof err), TL_E_ARG);
  float *s2 = (float *)(buf + parts[2].scales_at);
  float keep = s2[3];
  s2[3] = INFINITY;
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 3, &ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "part 2: scales[3] is not finite") != NULL);
  s2[3] = keep;
  CHECK(copies_of(eng) == 0); /* every refused load gave its slot back */
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 3, &ram, err, sizeof err), TL_OK);
  CHECK(copies_of(eng) == 1);
  CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_OK);
  CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "not live") != NULL);
  CHECK_CODE(tl_ram_free(eng, NULL, err, sizeof err), TL_E_ARG);
  CHECK(copies_of(eng) == 0);
  free(buf);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void load_file(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  uint64_t rng = 6;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  unsigned char *buf;
  size_t bytes;
  tl_part parts[3];
  if (tg_expert_pack(&e, &buf, &bytes, parts) != 0) return;
  char path[] = "/tmp/tierlab-ram-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(write(fd, buf, bytes) == (ssize_t)bytes);
  close(fd);
  tl_ram *from_file = NULL, *from_mem = NULL;
  CHECK_CODE(tl_ram_load_file(eng, path, parts, 3, &from_file, err, sizeof err), TL_OK);
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 3, &from_mem, err, sizeof err), TL_OK);
  float x[H], y1[H], y2[H], want[H], lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  tg_fill(&rng, x, H, -1.0f, 1.0f);
  CHECK_CODE(tg_expert_cpu(&e, lut, x, want, err, sizeof err), TL_OK);
  CHECK_CODE(tl_expert_cpu_ram(eng, from_file, x, y1, err, sizeof err), TL_OK);
  CHECK_CODE(tl_expert_cpu_ram(eng, from_mem, x, y2, err, sizeof err), TL_OK);
  CHECK(memcmp(y1, want, sizeof want) == 0 && memcmp(y2, want, sizeof want) == 0);
  CHECK_CODE(tl_ram_load_file(eng, "/nonexistent/tierlab", parts, 3, &from_mem, err, sizeof err),
             TL_E_ARG);
  CHECK(strstr(err, "cannot open /nonexistent/tierlab") != NULL);
  CHECK_CODE(tl_ram_load_file(eng, NULL, parts, 3, &from_mem, err, sizeof err), TL_E_ARG);
  CHECK(truncate(path, (off_t)bytes - 64) == 0);
  CHECK_CODE(tl_ram_load_file(eng, path, parts, 3, &from_mem, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "past the source") != NULL);
  unlink(path);
  CHECK_CODE(tl_ram_free(eng, from_file, err, sizeof err), TL_OK);
  CHECK(copies_of(eng) == 1); /* the memory copy: the last load failed and left nothing */
  free(buf);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK); /* frees from_mem too */
}

static void staging_lifetime(void) {
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  uint64_t rng = 7;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I4_ROW, H, F, 0) != 0) return;
  tl_ram *ram = NULL;
  CHECK_CODE(tg_expert_ram(eng, &e, &ram, err, sizeof err), TL_OK);
  tl_staging *s = (tl_staging *)&err, *s2 = NULL;
  CHECK_CODE(tl_stage(eng, NULL, &s, err, sizeof err), TL_E_ARG);
  CHECK(s == NULL);
  CHECK_CODE(tl_stage(eng, ram, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_stage(eng, ram, &s, err, sizeof err), TL_OK);
  CHECK_CODE(tl_stage(eng, ram, &s2, err, sizeof err), TL_OK);
  CHECK_CODE(tl_ram_free(eng, ram, err, sizeof err), TL_OK);
  CHECK(copies_of(eng) == 1); /* the staging references keep the bytes */
  tl_staging *refused = NULL;
  CHECK_CODE(tl_stage(eng, ram, &refused, err, sizeof err), TL_E_ARG); /* the handle is dead */
  float x[H], y[H], want[H], lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  tg_fill(&rng, x, H, -1.0f, 1.0f);
  CHECK_CODE(tl_expert_cpu_ram(eng, ram, x, y, err, sizeof err), TL_E_ARG);
  /* an upload from the staging reference still reads the right bytes */
  tl_tensor *t[3];
  for (int p = 0; p < 3; p++) {
    CHECK_CODE(tl_tensor_upload_staged(eng, 0, s2, p, 0, &t[p], err, sizeof err), TL_OK);
  }
  CHECK_CODE(tl_unstage(eng, s2, err, sizeof err), TL_OK);
  CHECK_CODE(tl_unstage(eng, s2, err, sizeof err), TL_E_ARG);
  tl_tensor *gone = NULL;
  CHECK_CODE(tl_tensor_upload_staged(eng, 0, s2, 0, 0, &gone, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_group_issue(eng, 0, 1, &t[0], &t[1], &t[2], x, H, 0, err, sizeof err), TL_OK);
  CHECK_CODE(tl_group_take(eng, 0, y, 1, H, err, sizeof err), TL_OK);
  CHECK_CODE(tg_expert_cpu(&e, lut, x, want, err, sizeof err), TL_OK);
  CHECK(memcmp(y, want, sizeof want) == 0);
  fx_free3(eng, t);
  CHECK(copies_of(eng) == 1);
  CHECK_CODE(tl_unstage(eng, s, err, sizeof err), TL_OK);
  CHECK(copies_of(eng) == 0);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

static void expert_ram_checks(void) {
  char err[ERR_CAP];
  int dev = 0;
  tl_engine *eng = NULL;
  CHECK_CODE(tl_engine_create(&dev, 1, 0, &eng, err, sizeof err), TL_OK);
  uint64_t rng = 8;
  tg_expert e;
  if (eng == NULL || tg_expert_make(&e, &rng, TL_FMT_I8_ROW, H, F, 0) != 0) return;
  tl_ram *ram = NULL, *two = NULL;
  CHECK_CODE(tg_expert_ram(eng, &e, &ram, err, sizeof err), TL_OK);
  float x[H] = {0}, y[H];
  CHECK_CODE(tl_expert_cpu_ram(eng, ram, x, y, err, sizeof err), TL_E_STATE); /* no table */
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, sizeof err), TL_OK);
  CHECK_CODE(tl_expert_cpu_ram(eng, ram, NULL, y, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_expert_cpu_ram(eng, ram, x, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_expert_cpu_ram(eng, NULL, x, y, err, sizeof err), TL_E_ARG);
  x[5] = NAN;
  CHECK_CODE(tl_expert_cpu_ram(eng, ram, x, y, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "x[5]") != NULL);
  unsigned char *buf;
  size_t bytes;
  tl_part parts[3];
  if (tg_expert_pack(&e, &buf, &bytes, parts) != 0) return;
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, parts, 2, &two, err, sizeof err), TL_OK);
  CHECK_CODE(tl_expert_cpu_ram(eng, two, x, y, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "needs 3") != NULL);
  tl_part swapped[3] = {parts[2], parts[1], parts[0]};
  tl_ram *wrong = NULL;
  CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, swapped, 3, &wrong, err, sizeof err), TL_OK);
  x[5] = 0.0f;
  CHECK_CODE(tl_expert_cpu_ram(eng, wrong, x, y, err, sizeof err), TL_E_ARG);
  free(buf);
  tg_expert_free(&e);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK); /* frees the three copies */
}

/* Chunks added while every slot is held (4, 8 and 16 slots of 1 MiB): when all copies
 * are freed, every slot is back on the free stack, and loading them again maps nothing. */
static void pool_reuses_every_slot(void) {
  enum { N = 28, ROWS = 1000, COLS = 1000 };
  char err[ERR_CAP];
  tl_engine *eng = fx_engine(1, 0);
  const size_t wbytes = (size_t)ROWS * COLS, bytes = wbytes + ROWS * sizeof(float);
  unsigned char *buf = calloc(1, bytes);
  if (eng == NULL || buf == NULL) {
    CHECK(0);
    free(buf);
    return;
  }
  float *scales = (float *)(buf + wbytes);
  for (int i = 0; i < ROWS; i++) scales[i] = 0.01f;
  const tl_part part = {TL_FMT_I8_ROW, ROWS, COLS, 0, 0, wbytes};
  tl_ram *held[N] = {0};
  uint64_t copies = 0, host = 0, host_again = 0, pinned = 0;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < N; i++) {
      CHECK_CODE(tl_ram_load_mem(eng, buf, bytes, &part, 1, &held[i], err, sizeof err), TL_OK);
    }
    CHECK(copies_of(eng) == N);
    CHECK_CODE(
        tl_ram_stats(eng, &copies, round == 0 ? &host : &host_again, &pinned, err, sizeof err),
        TL_OK);
    for (int i = 0; i < N; i++) CHECK_CODE(tl_ram_free(eng, held[i], err, sizeof err), TL_OK);
    CHECK(copies_of(eng) == 0);
  }
  CHECK(host_again == host);
  free(buf);
  CHECK_CODE(tl_engine_destroy(eng, err, sizeof err), TL_OK);
}

void suite_ram(void) {
  th_run("ram: loads check shapes, bounds and scales, and name the part", load_checks);
  th_run("ram: a file load equals a memory load; bad files are refused", load_file);
  th_run("ram: staging references keep freed RAM bytes for uploads", staging_lifetime);
  th_run("ram: tl_expert_cpu_ram checks its copy and the table", expert_ram_checks);
  th_run("ram: every slot returns to the pool, also from chunks added while all were held",
         pool_reuses_every_slot);
}
