/*
 * The scheduler as a shared library (make sched-lib: build/libtl_sched.so), for callers
 * in other languages (Node through koffi): the implementation, with every tl_sched_
 * function exported and nothing else (-fvisibility=hidden; the API is marked default).
 */
#define _GNU_SOURCE
#define TL_SCHED_IMPLEMENTATION
#include "tl_sched.h"
