/*
 * Argument checks shared by tl_tensor_upload, RAM copies, tl_group_issue and tl_expert_cpu.
 *
 * Role: one place that knows MATH.md's packing rules (bytes per format, scale counts),
 * so an upload and a host expert accept exactly the same tensors. Every check returns
 * TL_OK or TL_E_ARG with a message that names the function, the argument and the value.
 */
#ifndef TIERLAB_SHAPE_H
#define TIERLAB_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* Checks fmt, rows, cols, group; on success writes the exact data bytes and scale count
 * that such a tensor must come with. `what` names the tensor in messages ("tensor",
 * "gate", ...). */
int tl_check_shape(const char *fn, const char *what, int fmt, int rows, int cols, int group,
                   uint64_t *data_bytes, uint64_t *nscales, char *err, size_t cap);

/* The values of a tensor of that format: finite scales, and for format 8 no NaN encoding
 * among the weights. TL_OK, or TL_E_ARG naming the first bad value. */
int tl_check_values(const char *fn, const char *what, int fmt, const void *data, size_t data_bytes,
                    const float *scales, size_t nscales, char *err, size_t cap);

/* Index of the first non-finite value, or -1 when all n are finite. */
long tl_first_nonfinite(const float *v, size_t n);

#endif
