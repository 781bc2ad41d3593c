/*
 * tl_sched implementation, part 3: the side table of objects (mutexes, condition
 * variables, atomic addresses, backend objects), keyed by address.
 *
 * Role: the scheduler never reads or writes a pthread object's fields; it keeps its own
 * record of each one: kind, generation, live or destroyed, holder and depth, and a copy
 * of the object's bytes as last seen. An address first used without an init is a static
 * initializer (PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER) and is registered
 * then. Bytes that changed since the last use mean the program cleared or copied over
 * the object (memset): an idle object starts a new generation, a busy one is a violation.
 * An init starts a new generation; a destroy keeps the record, so that a later use is
 * reported as a use after destroy.
 *
 * Invariants: one record per (address, space) per run, ids 1.. in order of first use
 * (so ids, unlike addresses, are the same in every process: traces name objects by id);
 * records are never removed during a run; indices stay valid, pointers do not across a
 * registration (the array may move).
 */

/* names given outside a run (tl_sched_name_object before tl_sched_run), by address */
typedef struct tls_given_name {
  const volatile void *addr;
  char name[TL_SCHED_NAME_MAX];
} tls_given_name;
static tls_given_name tls_names[256];
static uint32_t tls_n_names;
static pthread_mutex_t tls_names_mx = PTHREAD_MUTEX_INITIALIZER;

static uint32_t tls_hash(const volatile void *addr, uint32_t space) {
  uint64_t k = (uint64_t)(uintptr_t)addr ^ ((uint64_t)space << 61);
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k;
}

static uint32_t tls_obj_find(tls_run *S, const volatile void *addr, uint32_t space) {
  if (S->slots == NULL) return TLS_NONE;
  for (uint32_t h = tls_hash(addr, space) & S->slot_mask;; h = (h + 1) & S->slot_mask) {
    uint32_t v = S->slots[h];
    if (v == 0) return TLS_NONE;
    tls_obj *o = &S->obj[v - 1];
    if (o->addr == addr && o->space == space) return v - 1;
  }
}

static void tls_slots_insert(tls_run *S, uint32_t idx) {
  tls_obj *o = &S->obj[idx];
  uint32_t h = tls_hash(o->addr, o->space) & S->slot_mask;
  while (S->slots[h] != 0) h = (h + 1) & S->slot_mask;
  S->slots[h] = idx + 1;
}

static void tls_slots_grow(tls_run *S) {
  uint32_t n = S->slots ? (S->slot_mask + 1) * 2 : 64;
  free(S->slots);
  S->slots = (uint32_t *)calloc(n, sizeof(uint32_t));
  if (S->slots == NULL) {
    fprintf(stderr, "tl_sched: out of memory (object table)\n");
    abort();
  }
  S->slot_mask = n - 1;
  for (uint32_t i = 0; i < S->n_obj; i++) tls_slots_insert(S, i);
}

static size_t tls_obj_bytes(uint32_t kind) {
  if (kind == TL_SCHED_OBJ_MUTEX) return sizeof(pthread_mutex_t);
  if (kind == TL_SCHED_OBJ_COND) return sizeof(pthread_cond_t);
  return 0;
}

static void tls_obj_snapshot(tls_obj *o) {
  o->snap_len = (uint32_t)tls_obj_bytes(o->kind);
  if (o->snap_len) memcpy(o->snap, (const void *)o->addr, o->snap_len);
}

/* the object's bytes changed since the scheduler last saw them */
static int tls_obj_changed(const tls_obj *o) {
  return o->snap_len && memcmp(o->snap, (const void *)o->addr, o->snap_len) != 0;
}

static void tls_obj_given_name(tls_obj *o) {
  tls_real_mutex_lock(&tls_names_mx);
  for (uint32_t i = 0; i < tls_n_names; i++)
    if (tls_names[i].addr == o->addr) memcpy(o->name, tls_names[i].name, TL_SCHED_NAME_MAX);
  tls_real_mutex_unlock(&tls_names_mx);
}

static uint32_t tls_obj_add(tls_run *S, const volatile void *addr, uint32_t space, uint32_t kind) {
  if ((S->n_obj + 1) * 2 > (S->slots ? S->slot_mask + 1 : 0)) tls_slots_grow(S);
  S->obj = (tls_obj *)tls_grow(S->obj, &S->cap_obj, S->n_obj + 1, sizeof(tls_obj));
  uint32_t idx = S->n_obj++;
  tls_obj *o = &S->obj[idx];
  memset(o, 0, sizeof *o);
  o->addr = addr;
  o->space = space;
  o->kind = kind;
  o->id = idx + 1;
  o->gen = 1;
  o->live = 1;
  o->owner = TLS_NONE;
  tls_obj_snapshot(o);
  tls_obj_given_name(o);
  tls_slots_insert(S, idx);
  return idx;
}

/* the record of addr in space, registered on first use */
static uint32_t tls_obj_lookup(tls_run *S, const volatile void *addr, uint32_t space,
                               uint32_t kind) {
  uint32_t idx = tls_obj_find(S, addr, space);
  return idx != TLS_NONE ? idx : tls_obj_add(S, addr, space, kind);
}

static const char *tls_kind_name(uint32_t kind) {
  switch (kind) {
    case TL_SCHED_OBJ_MUTEX:
      return "mutex";
    case TL_SCHED_OBJ_COND:
      return "cond";
    case TL_SCHED_OBJ_ATOMIC:
      return "atomic";
    case TL_SCHED_OBJ_BACKEND:
      return "backend";
    default:
      return "object";
  }
}

/* "mutex#2" or "mutex#2(mx)", with ".g3" past the first generation */
static int tls_obj_label(const tls_obj *o, uint32_t gen, char *buf, size_t cap) {
  char g[16] = "";
  if (gen > 1) snprintf(g, sizeof g, ".g%u", gen);
  if (o->name[0])
    return snprintf(buf, cap, "%s#%u%s(%s)", tls_kind_name(o->kind), o->id, g, o->name);
  return snprintf(buf, cap, "%s#%u%s", tls_kind_name(o->kind), o->id, g);
}

/* for reports: the label and the address */
static const char *tls_obj_describe(const tls_obj *o, char *buf, size_t cap) {
  int n = tls_obj_label(o, o->gen, buf, cap);
  if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, " at %p", (const void *)o->addr);
  return buf;
}
