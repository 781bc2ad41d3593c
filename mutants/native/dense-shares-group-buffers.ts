/**
 * Native defect dense-shares-group-buffers (the seeds' b86e55e): the dense GEMV stages
 * its input and output in the expert group's buffers, while that group is in flight on
 * the same device.
 */
import type { NativeDefect } from '../lib/native_defect.js';

export const defect: NativeDefect = {
  id: 'dense-shares-group-buffers',
  title: "the dense GEMV uses the open group's input and output buffers",
  history:
    "b86e55e: coli_cuda_matmul staged in the same x/y device buffers as the expert group, which runs between issue and take; with the trunk resident every dense GEMV overwrote the group's input and its output landed where take reads: no error, wrong tokens",
  backends: ['cpu', 'cuda', 'vulkan'],
  runs: ['trunk and experts'],
  caughtBy: "hidden states differ from the CPU-only run (the group outputs take collects are the GEMV's)",
  patches: [
    {
      file: 'native/cpu/cpu_tensor.c',
      find: '  memcpy(d->dense_in, qx, (size_t)w->cols);\n  tl_dense_rows(ct->w, ct->s, w->rows, w->cols, d->dense_in, e, d->dense_out);\n  memcpy(y, d->dense_out, (size_t)w->rows * sizeof(float));',
      replace:
        '  memcpy(d->q, qx, (size_t)w->cols);\n  tl_dense_rows(ct->w, ct->s, w->rows, w->cols, d->q, e, d->y);\n  memcpy(y, d->y, (size_t)w->rows * sizeof(float));',
    },
    {
      file: 'native/cuda/cuda_dense.c',
      find: '  memcpy(d->h_dense_in, qx, (size_t)w->cols);\n  CUDA_TRY(\n      d, cudaMemcpyAsync(d->d_dense_in, d->h_dense_in, (size_t)w->cols, cudaMemcpyHostToDevice, s));\n  CUDA_TRY(d, tl_cuda_launch_dense(ref, d->d_dense_in, e, d->d_dense_out, s));\n  CUDA_TRY(d,\n           cudaMemcpyAsync(d->h_dense_out, d->d_dense_out, (size_t)w->rows * sizeof(float),\n                           cudaMemcpyDeviceToHost, s));\n  CUDA_TRY(d, cudaStreamSynchronize(s));\n  memcpy(y, d->h_dense_out, (size_t)w->rows * sizeof(float));',
      replace:
        '  memcpy(d->h_x, qx, (size_t)w->cols);\n  CUDA_TRY(\n      d, cudaMemcpyAsync(d->d_qx, d->h_x, (size_t)w->cols, cudaMemcpyHostToDevice, s));\n  CUDA_TRY(d, tl_cuda_launch_dense(ref, d->d_qx, e, d->d_y, s));\n  CUDA_TRY(d,\n           cudaMemcpyAsync(d->h_y, d->d_y, (size_t)w->rows * sizeof(float),\n                           cudaMemcpyDeviceToHost, s));\n  CUDA_TRY(d, cudaStreamSynchronize(s));\n  memcpy(y, d->h_y, (size_t)w->rows * sizeof(float));',
    },
    {
      file: 'native/vulkan/vk_dense.c',
      find: '    if (k == 6) {\n      bind(&info[k], d->io.buf, d->off_y, out_bytes);\n    } else {\n      bind(&info[k], d->io.buf, 0, in_bytes);\n    }',
      replace:
        '    if (k == 6) {\n      bind(&info[k], b->group.io.buf, b->group.off_y, out_bytes);\n    } else {\n      bind(&info[k], b->group.io.buf, 0, in_bytes);\n    }',
    },
    {
      file: 'native/vulkan/vk_dense.c',
      find: '  int32_t *in = d->io.map;',
      replace: '  int32_t *in = b->group.io.map;',
    },
    {
      file: 'native/vulkan/vk_dense.c',
      find: '  memcpy(y, (const uint8_t *)d->io.map + d->off_y, (size_t)w->rows * sizeof(float));',
      replace: '  memcpy(y, (const uint8_t *)b->group.io.map + b->group.off_y, (size_t)w->rows * sizeof(float));',
    },
  ],
};
