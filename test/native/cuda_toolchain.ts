/**
 * Whether this machine compiles CUDA (nvcc and the CUDA headers): the CUDA library's
 * compile and the CUDA host code on the stand-in runtime need it, a GPU they do not.
 */
import { execFileSync } from 'node:child_process';

function hasNvcc(): boolean {
  try {
    execFileSync('nvcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const HAS_NVCC = hasNvcc();
