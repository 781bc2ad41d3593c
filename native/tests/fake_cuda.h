/*
 * What the fake CUDA runtime (fake_cuda.c) offers the tests linked with it beside the
 * runtime's own functions: a count of the asynchronous copies submitted, and a switch
 * that keeps every copy from running, so that copies stay in flight exactly as long as
 * a test needs, whatever the machine's speed.
 */
#ifndef TIERLAB_FAKE_CUDA_H
#define TIERLAB_FAKE_CUDA_H

#include <stdint.h>

uint64_t fake_cuda_async_copies(void);
/* stop 1: no copy runs (each waits where it is in its stream); 0: they run again */
void fake_cuda_stop_copies(int stop);

#endif
