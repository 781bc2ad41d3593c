/*
 * tl_sched implementation, part 11: the hooks a program calls (explicit yield, backend
 * entry, atomic accesses, names, its own failures) and the renamed calls that are not
 * about mutexes or threads' lives: affinity and names of threads, sched_yield, sleeps.
 *
 * Affinity of a managed thread is recorded and read back, never applied: every managed
 * thread runs on the caller's OS thread, so pinning one would pin the whole schedule (an
 * unseen sched_setaffinity call does that, harmlessly). A sleep inside a run is a yield
 * point that takes no time: the scheduler has no clock, the order is what matters.
 */

TL_SCHED_API int tl_sched_active(void) { return tls_active_run() != NULL; }

TL_SCHED_API void tl_sched_yield(void) {
  tls_run *S = tls_active_run();
  if (S != NULL) tls_point(S, TL_SCHED_OP_YIELD, TLS_NONE, TLS_NONE, 0, 0);
}

TL_SCHED_API void tl_sched_backend_enter(const char *what, const volatile void *obj) {
  tls_run *S = tls_active_run();
  if (S == NULL) return;
  const volatile void *key = obj != NULL ? obj : (const void *)what;
  uint32_t idx = tls_obj_lookup(S, key, TLS_SPACE_BACKEND, TL_SCHED_OBJ_BACKEND);
  if (S->obj[idx].name[0] == '\0' && what != NULL) tls_copy_name(S->obj[idx].name, what);
  tls_point(S, TL_SCHED_OP_BACKEND, idx, TLS_NONE, 0, 0);
}

TL_SCHED_API void tl_sched_atomic_point(const volatile void *addr, int is_store) {
  tls_run *S = tls_active_run();
  if (S == NULL) return;
  uint32_t idx = tls_obj_lookup(S, addr, TLS_SPACE_ATOMIC, TL_SCHED_OBJ_ATOMIC);
  uint32_t op =
      is_store == 0 ? TL_SCHED_OP_LOAD : (is_store == 1 ? TL_SCHED_OP_STORE : TL_SCHED_OP_RMW);
  tls_point(S, op, idx, TLS_NONE, 0, 0);
}

TL_SCHED_API int tl_sched_current(unsigned *trace_events) {
  tls_run *S = tls_active_run();
  if (trace_events != NULL) *trace_events = S != NULL ? S->res->n_events : 0u;
  return S != NULL ? (int)S->running : -1;
}

TL_SCHED_API void tl_sched_name_thread(const char *name) {
  tls_run *S = tls_active_run();
  if (S == NULL) return;
  tls_copy_name(S->th[S->running].name, name);
#if defined(TLS_TSAN)
  __tsan_set_fiber_name(S->th[S->running].fiber.tsan, S->th[S->running].name);
#endif
}

/* kept by address for the process (a run registers objects later); applied at once to
 * the records of the current run */
TL_SCHED_API void tl_sched_name_object(const volatile void *addr, const char *name) {
  tls_real_mutex_lock(&tls_names_mx);
  uint32_t i = 0;
  while (i < tls_n_names && tls_names[i].addr != addr) i++;
  if (i < sizeof tls_names / sizeof tls_names[0]) {
    tls_names[i].addr = addr;
    tls_copy_name(tls_names[i].name, name);
    if (i == tls_n_names) tls_n_names++;
  }
  tls_real_mutex_unlock(&tls_names_mx);
  tls_run *S = tls_cur;
  if (S == NULL) return;
  for (uint32_t s = 0; s <= TLS_SPACE_BACKEND; s++) {
    uint32_t idx = tls_obj_find(S, addr, s);
    if (idx != TLS_NONE) tls_copy_name(S->obj[idx].name, name);
  }
}

TL_SCHED_API void tl_sched_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_run *S = tls_active_run();
  if (S == NULL) {
    fputs("tl_sched_fail outside a run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
  }
  char b[96];
  tls_describe(S->res, "%s failed: ", tls_thread_label(&S->th[S->running], b, sizeof b));
  tls_vdescribe(S->res, 1, fmt, ap);
  va_end(ap);
  tls_describe_more(S->res, " (step %u)", S->steps);
  tls_end(S, TL_SCHED_VIOLATION);
}

/* the managed thread of handle h in the current run, or null */
static tls_thread *tls_managed(pthread_t h) {
  tls_run *S = tls_active_run();
  uint32_t tid = tls_handle_tid(h);
  return (S != NULL && tid < S->n_th) ? &S->th[tid] : NULL;
}

TL_SCHED_API int tl_sched_setaffinity_np(pthread_t h, size_t size, const cpu_set_t *set) {
  if (!tls_is_handle(h)) return tls_real_setaffinity(h, size, set);
  tls_thread *t = tls_managed(h);
  if (t == NULL) return ESRCH;
  const unsigned char *bytes = (const unsigned char *)set;
  int any = 0;
  for (size_t i = 0; i < size; i++) any |= bytes[i] != 0;
  if (!any) return EINVAL;
  t->cpus_len = (uint32_t)(size < sizeof t->cpus ? size : sizeof t->cpus);
  memcpy(t->cpus, bytes, t->cpus_len);
  return 0;
}

TL_SCHED_API int tl_sched_getaffinity_np(pthread_t h, size_t size, cpu_set_t *set) {
  if (!tls_is_handle(h)) return tls_real_getaffinity(h, size, set);
  tls_thread *t = tls_managed(h);
  if (t == NULL) return ESRCH;
  if (t->cpus_len == 0) return tls_real_getaffinity(tls_real_self(), size, set);
  memset(set, 0, size);
  memcpy(set, t->cpus, t->cpus_len < size ? t->cpus_len : size);
  return 0;
}

TL_SCHED_API int tl_sched_setname_np(pthread_t h, const char *name) {
  if (!tls_is_handle(h)) return tls_real_setname(h, name);
  tls_thread *t = tls_managed(h);
  if (t == NULL) return ESRCH;
  if (strlen(name) > 15) return ERANGE; /* as glibc: 16 bytes with the NUL */
  tls_copy_name(t->name, name);
  return 0;
}

TL_SCHED_API int tl_sched_getname_np(pthread_t h, char *name, size_t len) {
  if (!tls_is_handle(h)) return tls_real_getname(h, name, len);
  tls_thread *t = tls_managed(h);
  if (t == NULL) return ESRCH;
  if (strlen(t->name) >= len) return ERANGE;
  strcpy(name, t->name);
  return 0;
}

TL_SCHED_API int tl_sched_sched_yield(void) {
  if (tls_active_run() == NULL) return tls_real_sched_yield();
  tl_sched_yield();
  return 0;
}

TL_SCHED_API int tl_sched_nanosleep(const struct timespec *req, struct timespec *rem) {
  if (tls_active_run() == NULL) return tls_real_nanosleep(req, rem);
  if (rem != NULL) rem->tv_sec = rem->tv_nsec = 0;
  tl_sched_yield();
  return 0;
}

TL_SCHED_API int tl_sched_usleep(unsigned int usec) {
  if (tls_active_run() == NULL) return tls_real_usleep(usec);
  tl_sched_yield();
  return 0;
}
