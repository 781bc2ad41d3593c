/*
 * tl_sched's renaming header, for the compiler's command line:
 *
 *   cc -include native/sched/tl_sched_interpose.h tier.c ...
 *
 * Maps the pthread calls of every file it is forced into onto the scheduler (see
 * tl_sched.h), and declares the hooks (TL_SCHED_YIELD, TL_SCHED_BACKEND, ...). It
 * includes no system header, so a file's own `#define _GNU_SOURCE` at its top still
 * counts. Add -DTL_SCHED_INTERPOSE_ATOMICS to make every __atomic builtin a scheduling
 * point too. The file that defines TL_SCHED_IMPLEMENTATION may be compiled with it or
 * without it.
 */
#define TL_SCHED_INTERPOSE 1
#define TL_SCHED_INTERPOSE_ONLY 1
#include "tl_sched.h"
#undef TL_SCHED_INTERPOSE_ONLY
