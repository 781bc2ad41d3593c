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
 * The dynamic loader says "No such file or directory" for a library built for another
 * CPU, and something as vague for a file that is no library at all; so the file is first
 * told apart by what it is: not ELF (a script, text, an archive, a Mach-O or PE file),
 * ELF of the other word size or byte order, for another machine, or an ELF executable or
 * object rather than a shared library.
 *
 * Invariant: returns null for an ELF shared library of this machine whose declared layout
 * fits its size, else one sentence naming what the file is or what is wrong. It reads the
 * header and the two tables only, and opens without blocking (a named pipe is refused,
 * not waited on).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

/** The native engine's backends: the CPU reference, CUDA and Vulkan. */
export const NATIVE_BACKENDS = ['cpu', 'cuda', 'vulkan'] as const;
export type NativeBackend = (typeof NATIVE_BACKENDS)[number];

/** Where the library for a backend is built (TIERLAB_LIB names another file instead; empty is unset). */
export function libraryPath(backend: NativeBackend): string {
  const named = process.env.TIERLAB_LIB;
  return named !== undefined && named !== '' ? named : `native/build/libtierlab_${backend}.so`;
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
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
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
  const head = readAt(fd, 0, Math.min(size, 64));
  if (size < 4 || head.readUInt32BE(0) !== 0x7f454c46) return `it is not an ELF file (${notElf(head)})`;
  if (size < 52) return `it is ${size} bytes, too short for an ELF header`;
  const wide = head[4] === 2;
  const little = head[5] === 1;
  if ((head[4] !== 1 && !wide) || (head[5] !== 1 && head[5] !== 2))
    return 'its ELF header names no known class or byte order';
  if (wide && size < 64) return `it is ${size} bytes, too short for a 64-bit ELF header`;
  const at = reader(head, { wide, little });
  const identity = identityProblem(wide, little, at(16, 2), at(18, 2));
  if (identity !== null) return identity;
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

/** ELF machine numbers (e_machine) by name, and Node's name for each CPU this process may run on */
const MACHINES: Readonly<Record<number, string>> = {
  3: 'x86 (32-bit)',
  8: 'MIPS',
  20: 'PowerPC',
  21: 'PowerPC 64',
  22: 'IBM S/390',
  40: 'ARM (32-bit)',
  62: 'x86-64',
  183: 'AArch64 (64-bit ARM)',
  243: 'RISC-V',
  258: 'LoongArch',
};
const HOST_MACHINE: Readonly<Record<string, number>> = {
  ia32: 3,
  x64: 62,
  arm: 40,
  arm64: 183,
  ppc: 20,
  ppc64: 21,
  s390x: 22,
  riscv64: 243,
  loong64: 258,
  mips: 8,
  mipsel: 8,
};
const ELF_TYPES: Readonly<Record<number, string>> = {
  1: 'an ELF relocatable object (a .o file), not a shared library',
  2: 'an ELF executable, not a shared library',
  4: 'an ELF core dump, not a shared library',
};

/** What the ELF header says the file is, when it is not a shared library this process can load. */
function identityProblem(wide: boolean, little: boolean, type: number, machine: number): string | null {
  const hostMachine = HOST_MACHINE[process.arch];
  const machineName = MACHINES[machine] ?? `machine ${machine}`;
  const hostName = hostMachine !== undefined ? (MACHINES[hostMachine] ?? process.arch) : process.arch;
  if (hostMachine !== undefined && machine !== hostMachine)
    return `it is an ELF ${type === 3 ? 'library' : 'file'} for ${machineName}, and this machine is ${hostName}`;
  const hostWide = process.arch.endsWith('64') || process.arch === 's390x';
  if (wide !== hostWide)
    return `it is a ${wide ? '64' : '32'}-bit ELF file, and this process is ${hostWide ? '64' : '32'}-bit`;
  if (little !== (endianness() === 'LE'))
    return `it is a ${little ? 'little' : 'big'}-endian ELF file, and this machine is not`;
  const kind = ELF_TYPES[type];
  if (kind !== undefined) return `it is ${kind}`;
  if (type !== 3) return `its ELF type is ${type}, not a shared library`;
  return null;
}

/** What a file without the ELF magic number looks like it is, from its first bytes. */
function notElf(head: Buffer): string {
  const text = head.toString('latin1');
  if (text.startsWith('#!')) return 'a script';
  if (text.startsWith('!<arch>')) return 'a static library archive (.a); the engine is a shared library (.so)';
  const magic = head.length >= 4 ? head.readUInt32BE(0) : 0;
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)) return 'a Mach-O file, for macOS';
  if (text.startsWith('MZ')) return 'a Windows executable or DLL';
  if (text.startsWith('\x1f\x8b')) return 'gzip data';
  if (text.startsWith('PK')) return 'a zip archive';
  if (head.length === 0) return 'an empty file';
  return /^[\t\n\r\x20-\x7e]*$/.test(text) ? 'text' : 'no ELF magic number';
}
