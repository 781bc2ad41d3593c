/**
 * A native library as a file: the backends the engine is built for and where each one's
 * library lies, and the library checked as a file before it is loaded.
 *
 * A backend is one folder of native/ (written against native/src/backend.h), one Makefile
 * target and one library, native/build/libtierlab_<backend>.so. The loader maps an ELF file's
 * segments as they are declared, and a segment that runs past the end of a truncated
 * file is a SIGBUS at the first touch, which kills the process with no message. So the
 * ELF header, the program header table, every loaded segment, the section header table
 * and every section with file contents must lie inside the file.
 *
 * Invariant: returns null for a file whose declared layout fits its size, else one
 * sentence naming what is wrong. It reads the header and the two tables only.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The native engine's backends: the CPU reference, CUDA and Vulkan. */
export const NATIVE_BACKENDS = ['cpu', 'cuda', 'vulkan'] as const;
export type NativeBackend = (typeof NATIVE_BACKENDS)[number];

/** Where the library for a backend is built (TIERLAB_LIB names another file instead). */
export function libraryPath(backend: NativeBackend): string {
  return process.env.TIERLAB_LIB ?? `native/build/libtierlab_${backend}.so`;
}

const PT_LOAD = 1;
const SHT_NOBITS = 8;

interface Layout {
  readonly wide: boolean;
  readonly little: boolean;
}

function reader(buf: Buffer, { wide, little }: Layout): (at: number, bytes: 2 | 4 | 'word') => number {
  return (at, bytes) => {
    if (bytes === 2) return little ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
    if (bytes === 4 || !wide) return little ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
    return Number(little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
  };
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  readSync(fd, buf, 0, length, offset);
  return buf;
}

/** What is wrong with `path` as an ELF shared library, or null when its layout fits. */
export function libraryFileProblem(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return `it cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? layoutProblem(fd, stat.size) : 'it is not a file';
  } finally {
    closeSync(fd);
  }
}

function layoutProblem(fd: number, size: number): string | null {
  if (size < 52) return `it is ${size} bytes, too short for an ELF header`;
  const head = readAt(fd, 0, Math.min(size, 64));
  if (head.readUInt32BE(0) !== 0x7f454c46) return 'it is not an ELF file (no ELF magic number)';
  const wide = head[4] === 2;
  const little = head[5] === 1;
  if ((head[4] !== 1 && !wide) || (head[5] !== 1 && head[5] !== 2))
    return 'its ELF header names no known class or byte order';
  if (wide && size < 64) return `it is ${size} bytes, too short for a 64-bit ELF header`;
  const at = reader(head, { wide, little });
  const ph = {
    offset: at(wide ? 0x20 : 0x1c, 'word'),
    size: at(wide ? 0x36 : 0x2a, 2),
    count: at(wide ? 0x38 : 0x2c, 2),
  };
  const sh = {
    offset: at(wide ? 0x28 : 0x20, 'word'),
    size: at(wide ? 0x3a : 0x2e, 2),
    count: at(wide ? 0x3c : 0x30, 2),
  };
  const fits = (offset: number, length: number): boolean => offset + length <= size;
  if (!fits(ph.offset, ph.size * ph.count))
    return `its program headers end at byte ${ph.offset + ph.size * ph.count}, past its ${size} bytes (truncated?)`;
  const phs = readAt(fd, ph.offset, ph.size * ph.count);
  const p = reader(phs, { wide, little });
  for (let i = 0; i < ph.count; i++) {
    const e = i * ph.size;
    if (p(e, 4) !== PT_LOAD) continue;
    const offset = p(e + (wide ? 8 : 4), 'word');
    const fileSize = p(e + (wide ? 32 : 16), 'word');
    if (!fits(offset, fileSize))
      return `its loaded segment ${i} ends at byte ${offset + fileSize}, past its ${size} bytes (truncated?)`;
  }
  if (sh.count === 0) return null;
  if (!fits(sh.offset, sh.size * sh.count))
    return `its section headers end at byte ${sh.offset + sh.size * sh.count}, past its ${size} bytes (truncated?)`;
  const shs = readAt(fd, sh.offset, sh.size * sh.count);
  const q = reader(shs, { wide, little });
  for (let i = 0; i < sh.count; i++) {
    const e = i * sh.size;
    if (q(e + 4, 4) === SHT_NOBITS) continue;
    const offset = q(e + (wide ? 24 : 16), 'word');
    const length = q(e + (wide ? 32 : 20), 'word');
    if (!fits(offset, length))
      return `its section ${i} ends at byte ${offset + length}, past its ${size} bytes (truncated?)`;
  }
  return null;
}
