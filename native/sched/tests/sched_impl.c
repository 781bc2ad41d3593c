/*
 * The scheduler's implementation for the tests (the library's one
 * TL_SCHED_IMPLEMENTATION file).
 */
#define _GNU_SOURCE
#define TL_SCHED_IMPLEMENTATION
#include "../tl_sched.h"
