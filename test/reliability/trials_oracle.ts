/**
 * The review's trials of `npm run oracle` flags (F), model containers (G), native
 * libraries (H) and environment variables (I), re-run as the review ran them.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { missingVulkanPieces } from '../../scripts/vulkan_toolchain.mjs';
import { ABI_VERSION } from '../../src/engine/native/binding.js';
import { brief, okIf, oneLine, skipped, worst, type Outcome, type Ran, type Trial, type Workspace } from './tools.js';

const O = (w: Workspace, args: readonly string[], env?: Record<string, string>) =>
  w.cli('oracle', ['--report', w.report(), ...args], env !== undefined ? { env } : {});
const refused = (w: Workspace, line: RegExp, ...args: string[]): Outcome => oneLine(O(w, args), line);
/** refused, and no run was reported as failed (the review saw fifteen FAIL rows) */
function refusedBeforeRuns(r: Ran, line: RegExp): Outcome {
  const o = oneLine(r, line);
  return /FAIL|bit-identical/.test(r.stdout) ? { verdict: 'defect', observed: `${o.observed}; runs were reported` } : o;
}
const QUICK = ['--only', 'one expert, cold'];
const VULKAN_LIB = 'native/build/libtierlab_vulkan.so';

/**
 * `run` for a trial of the Vulkan engine: the library is built first where it is not (the
 * reliability script's set-up builds the CPU engine only); a machine that cannot build it
 * skips the trial and says what it lacks.
 */
function withVulkan(run: (w: Workspace) => Outcome): (w: Workspace) => Outcome {
  return (w) => {
    if (!existsSync(VULKAN_LIB)) {
      try {
        execFileSync('make', ['-s', '-C', 'native', 'vulkan'], { stdio: 'ignore' });
      } catch {
        // said below
      }
    }
    if (existsSync(VULKAN_LIB)) return run(w);
    const missing = missingVulkanPieces().map((m) => m.what);
    return skipped(`${VULKAN_LIB} cannot be built here${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}`);
  };
}
const CPU_LIB = 'native/build/libtierlab_cpu.so';

/** The oracle's verdict on a run that must end in a token mismatch (exit 1). */
function mismatch(r: Ran): Outcome {
  return okIf(
    r.code === 1 && /^FAIL: /m.test(r.stdout),
    brief(r).replace(/: .*/, `: ${r.stdout.trim().split('\n').pop() ?? ''}`),
  );
}

export const FLAG_TRIALS: readonly Trial[] = [
  {
    id: 'F1',
    what: '--backend nope',
    run: (w) => refused(w, /--backend must be cpu, cuda or vulkan/, '--backend', 'nope'),
  },
  { id: 'F2', what: '--backend with no value', run: (w) => refused(w, /argument missing/, '--backend') },
  {
    id: 'F3',
    what: '--devices 0,0 (fifteen FAIL rows, exit 1)',
    run: (w) =>
      refusedBeforeRuns(O(w, ['--devices', '0,0']), /cannot create a cpu engine on devices \[0,0\]: .*appears twice/),
  },
  {
    id: 'F4',
    what: '--devices=-1, --devices a,b',
    run: (w) =>
      worst([refused(w, /--devices wants/, '--devices=-1'), refused(w, /--devices wants/, '--devices', 'a,b')]),
  },
  {
    id: 'F5',
    what: '--devices= (silently device 0)',
    run: (w) => refused(w, /--devices wants an integer .*, got ''/, '--devices='),
  },
  {
    id: 'F6',
    what: '18 devices, device 1000000',
    run: (w) =>
      worst([
        refusedBeforeRuns(
          O(w, ['--devices', Array.from({ length: 18 }, (_, i) => i).join(',')]),
          /cannot create a cpu engine .*ndevices must be in 1\.\.8/,
        ),
        refusedBeforeRuns(O(w, ['--devices', '1000000']), /cannot create a cpu engine on devices \[1000000\]/),
      ]),
  },
  {
    id: 'F7',
    what: '--tokens 0, 65, abc, 1.5',
    run: (w) =>
      worst(['0', '65', 'abc', '1.5'].map((t) => refused(w, /--tokens wants an integer in \[1, 64\]/, '--tokens', t))),
  },
  { id: 'F8', what: '--only zzz (PASS 1/1)', run: (w) => refused(w, /--only 'zzz' matches no run/, '--only', 'zzz') },
  { id: 'F9', what: '--gpu', run: (w) => refused(w, /Unknown option '--gpu'/, '--gpu') },
  {
    id: 'F10',
    what: '--report pointing at a file (a stack trace after the run)',
    run: (w) => oneLine(w.cli('oracle', ['--report', 'README.md']), /--report README\.md: .*is not a directory/),
  },
  {
    id: 'F11',
    what: '--backend cuda without a GPU (fifteen FAIL rows)',
    run: (w) =>
      refusedBeforeRuns(
        O(w, ['--backend', 'cuda']),
        /cannot create a cuda engine on devices \[0\]|native library not found: .*libtierlab_cuda\.so/,
      ),
  },
];

/** A copy of fixtures/tiny-moe with its manifest edited and its weights changed. */
function container(
  w: Workspace,
  edit: {
    manifest?: (m: Manifest) => void;
    weights?: (b: Buffer, m: Manifest) => Buffer;
    manifestText?: string;
    sha?: boolean;
  },
): string {
  const dir = w.path('model');
  mkdirSync(dir);
  const m = JSON.parse(readFileSync('fixtures/tiny-moe/manifest.json', 'utf8')) as Manifest;
  let weights: Buffer = readFileSync('fixtures/tiny-moe/weights.bin');
  if (edit.weights !== undefined) weights = edit.weights(weights, m);
  if (edit.sha === true) m.reference.weightsSha256 = createHash('sha256').update(weights).digest('hex');
  edit.manifest?.(m);
  writeFileSync(join(dir, 'manifest.json'), edit.manifestText ?? JSON.stringify(m));
  writeFileSync(join(dir, 'weights.bin'), weights);
  return dir;
}
interface Manifest {
  shape: Record<string, unknown>;
  prompt: number[];
  reference: { tokens: number[]; margins: number[]; weightsSha256: string };
  tensors: { name: string; offset: number; bytes: number }[];
  [key: string]: unknown;
}
const tensor = (m: Manifest, name: string) => m.tensors.find((t) => t.name === name) ?? { offset: 0, bytes: 0 };
/** weights with float `value` written at element `at` of each named f32 tensor */
const withFloat =
  (names: readonly string[], value: number, every = false) =>
  (b: Buffer, m: Manifest): Buffer => {
    const out = Buffer.from(b);
    for (const name of names) {
      const t = tensor(m, name);
      for (let i = 0; i < (every ? t.bytes / 4 : 1); i++)
        out.writeFloatLE(value, t.offset + 4 * (every ? i : 10 * Number(name === 'embed')));
    }
    return out;
  };
const onFixture = (w: Workspace, dir: string, line: RegExp): Outcome => refused(w, line, '--fixture', dir);
const G = (id: string, what: string, make: (w: Workspace) => string, line: RegExp, ci = false): Trial => ({
  id,
  what,
  ci,
  run: (w) => onFixture(w, make(w), line),
});

const EXPERT_SCALES = Array.from({ length: 8 }, (_, l) =>
  Array.from({ length: 8 }, (_, e) => ['gate_s', 'up_s', 'down_s'].map((p) => `L${l}.E${e}.${p}`)),
).flat(2);

export const FIXTURE_TRIALS: readonly Trial[] = [
  { id: 'G1', what: 'a file instead of a directory', run: (w) => onFixture(w, 'README.md', /is not a directory/) },
  G('G2', 'an empty manifest.json', (w) => container(w, { manifestText: '' }), /not valid JSON/),
  G(
    'G3',
    'a manifest truncated in half',
    (w) => container(w, { manifestText: readFileSync('fixtures/tiny-moe/manifest.json', 'utf8').slice(0, 20_000) }),
    /not valid JSON/,
  ),
  G('G4', 'manifest null', (w) => container(w, { manifestText: 'null' }), /expected an object, got null/),
  G(
    'G5',
    'version "1"',
    (w) => container(w, { manifest: (m) => (m.version = '1') }),
    /version: expected an integer, got the string "1"/,
  ),
  G('G6', 'version 2', (w) => container(w, { manifest: (m) => (m.version = 2) }), /version 2 is not supported/),
  G('G7', 'shape.layers "8"', (w) => container(w, { manifest: (m) => (m.shape.layers = '8') }), /shape\.layers/),
  G(
    'G8',
    'format "tierlab-xyz"',
    (w) => container(w, { manifest: (m) => (m.format = 'tierlab-xyz') }),
    /is not "tierlab-moe"/,
  ),
  G('G9', 'an extra top-level key', (w) => container(w, { manifest: (m) => (m.extra = 1) }), /unknown key "extra"/),
  G(
    'G10',
    'tensors: {}',
    (w) => container(w, { manifest: (m) => (m.tensors = {} as never) }),
    /expected an array, got object/,
  ),
  G(
    'G11',
    'a tensor offset of -64',
    (w) => container(w, { manifest: (m) => ((m.tensors[0] ?? { offset: 0 }).offset = -64) }),
    /out of range/,
  ),
  G(
    'G12',
    'a tensor offset of 2^60',
    (w) => container(w, { manifest: (m) => ((m.tensors[0] ?? { offset: 0 }).offset = 2 ** 60) }),
    /expected an integer/,
  ),
  G(
    'G13',
    'experts: 1e9',
    (w) => container(w, { manifest: (m) => (m.shape.experts = 1e9) }),
    /not an integer in \[1, 1024\]|out of range/,
  ),
  G(
    'G14',
    'hidden: 1e9',
    (w) => container(w, { manifest: (m) => (m.shape.hidden = 1e9) }),
    /not an integer in \[1, 8192\]|out of range/,
  ),
  G('G15', 'layers: 1e300', (w) => container(w, { manifest: (m) => (m.shape.layers = 1e300) }), /expected an integer/),
  G(
    'G16',
    '256 layers x 1024 experts with the tiny tensor table',
    (w) => container(w, { manifest: (m) => Object.assign(m.shape, { layers: 256, experts: 1024 }) }),
    /shape: is \[8, 64\], .*needs \[1024, 64\]|tensor/,
  ),
  G(
    'G17',
    'topk 9 of 8 experts',
    (w) => container(w, { manifest: (m) => (m.shape.topk = 9) }),
    /topk = 9 exceeds experts = 8/,
  ),
  G('G18', 'an empty prompt', (w) => container(w, { manifest: (m) => (m.prompt = []) }), /1 to 4096 token ids/),
  G(
    'G19',
    'prompt token 320 with vocab 320',
    (w) => container(w, { manifest: (m) => (m.prompt[0] = 320) }),
    /320 is out of range \[0, 319\]/,
  ),
  {
    id: 'G20',
    what: '3 reference tokens (the error named a --tokens 64 the user never typed)',
    run: (w) => {
      const three = (m: Manifest) => {
        const margins = m.reference.margins.slice(0, 3);
        Object.assign(m.reference, {
          tokens: m.reference.tokens.slice(0, 3),
          margins,
          minMargin: Math.min(...margins),
        });
      };
      const dir = container(w, { manifest: three });
      const r = O(w, ['--fixture', dir, ...QUICK]);
      return okIf(r.code === 0 && /PASS: 2\/2 runs/.test(r.stdout), brief(r));
    },
  },
  {
    id: 'G21',
    what: 'weights.bin missing',
    run: (w) => {
      const dir = container(w, {});
      rmSync(join(dir, 'weights.bin'));
      return onFixture(w, dir, /weights.bin: cannot read the weights \(missing\)/);
    },
  },
  {
    id: 'G22',
    what: 'weights.bin a directory',
    run: (w) => {
      const dir = container(w, {});
      rmSync(join(dir, 'weights.bin'));
      mkdirSync(join(dir, 'weights.bin'));
      return onFixture(w, dir, /weights.bin: is a directory, not a file/);
    },
  },
  G(
    'G23',
    'weights truncated in half',
    (w) => container(w, { weights: (b) => b.subarray(0, b.length >> 1) }),
    /truncated: tensor/,
  ),
  G('G24', 'weights empty', (w) => container(w, { weights: () => Buffer.alloc(0) }), /truncated: tensor "embed"/),
  G(
    'G25',
    '64 bytes appended',
    (w) => container(w, { weights: (b) => Buffer.concat([b, Buffer.alloc(64)]) }),
    /has 64 bytes after the last tensor/,
  ),
  G(
    'G26',
    'one byte flipped',
    (w) => container(w, { weights: (b) => Buffer.from(b).fill((b[1000] ?? 0) ^ 0xff, 1000, 1001) }),
    /sha256 .* does not match/,
  ),
  G(
    'G27',
    'NaN in embed (sha256 updated)',
    (w) => container(w, { weights: withFloat(['embed'], Number.NaN), sha: true }),
    /tensor "embed" element 10 is not finite/,
  ),
  G(
    'G28',
    'NaN in an expert scale (sha256 updated)',
    (w) => container(w, { weights: withFloat(['L0.E0.gate_s'], Number.NaN), sha: true }),
    /tensor "L0\.E0\.gate_s" element 0 is not finite/,
  ),
  G(
    'G29',
    '+Inf in L0.wq (sha256 updated)',
    (w) => container(w, { weights: withFloat(['L0.wq'], Number.POSITIVE_INFINITY), sha: true }),
    /tensor "L0\.wq" element 0 is not finite/,
  ),
  {
    id: 'G30',
    what: 'expert scales of 3e38 (sha256 updated)',
    run: (w) =>
      mismatch(
        O(w, [
          '--fixture',
          container(w, { weights: withFloat(EXPERT_SCALES, 3e38, true), sha: true }),
          '--only',
          'everything, cold',
        ]),
      ),
  },
  {
    id: 'G31',
    what: "experts' weights overwritten (sha256 updated)",
    run: (w) => {
      const scramble = (b: Buffer, m: Manifest): Buffer => {
        const out = Buffer.from(b);
        for (const p of Array.from({ length: 8 }, (_, e) =>
          ['gate', 'up', 'down'].map((part) => `L0.E${e}.${part}`),
        ).flat()) {
          const t = tensor(m, p);
          for (let i = 0; i < t.bytes; i++) out[t.offset + i] = (i * 37 + 11) & 0xff;
        }
        return out;
      };
      return mismatch(
        O(w, ['--fixture', container(w, { weights: scramble, sha: true }), '--only', 'everything, cold']),
      );
    },
  },
  {
    id: 'G32',
    what: 'one reference token changed',
    run: (w) =>
      mismatch(
        O(w, [
          '--fixture',
          container(w, { manifest: (m) => (m.reference.tokens[40] = ((m.reference.tokens[40] ?? 0) + 1) % 320) }),
          '--only',
          'everything, cold',
        ]),
      ),
  },
  {
    id: 'G33',
    what: 'fixtures/generate.ts with --layers 0, --format 3, no --out, --seed abc, --bogus',
    run: (w) => {
      const gen = (...args: string[]) => w.node(['fixtures/generate.ts', ...args]);
      const out = ['--out', w.path('gen')];
      return worst([
        oneLine(gen('--layers', '0', ...out), /layers/),
        oneLine(gen('--format', '3', ...out), /format/),
        oneLine(gen(), /--out/),
        oneLine(gen('--seed', 'abc', ...out), /seed/),
        oneLine(gen('--bogus', ...out), /bogus/),
      ]);
    },
  },
  {
    id: 'G34',
    what: 'fixtures/generate.ts --out README.md',
    run: (w) => oneLine(w.node(['fixtures/generate.ts', '--tokens', '4', '--out', 'README.md']), /README\.md/, 1),
  },
];

/** a shared library compiled from `source` */
function sharedLib(w: Workspace, name: string, source: string): string {
  const so = w.path(`lib${name}.so`);
  execFileSync('cc', ['-shared', '-fPIC', '-o', so, '-x', 'c', '-'], { input: source });
  return so;
}
const withLib = (w: Workspace, lib: string, line: RegExp): Outcome => refused(w, line, '--lib', lib);

export const LIBRARY_TRIALS: readonly Trial[] = [
  {
    id: 'H1',
    what: 'libz in its place',
    run: (w) => withLib(w, '/usr/lib/x86_64-linux-gnu/libz.so.1', /is not a tierlab engine library/),
  },
  {
    id: 'H2',
    what: 'a text file',
    run: (w) => withLib(w, w.file('text.so', 'hello\n'), /cannot load .*: it is not an ELF file \(text\)/),
  },
  {
    id: 'H3',
    what: '--lib /etc/passwd',
    run: (w) => withLib(w, '/etc/passwd', /cannot load \/etc\/passwd: it is not an ELF file/),
  },
  {
    id: 'H4',
    what: 'the real library truncated to 20 000 bytes (SIGBUS, no message)',
    run: (w) => {
      const so = w.path('truncated.so');
      copyFileSync(CPU_LIB, so);
      truncateSync(so, 20_000);
      return withLib(w, so, /cannot load .*: its .* ends at byte \d+, past its 20000 bytes \(truncated\?\)/);
    },
  },
  {
    id: 'H5',
    what: 'tl_abi_version() returning another version',
    run: (w) =>
      withLib(
        w,
        sharedLib(w, 'abi', `unsigned tl_abi_version(void) { return ${ABI_VERSION + 1}; }\n`),
        new RegExp(`ABI mismatch: .* has ABI version ${ABI_VERSION + 1}`),
      ),
  },
  {
    id: 'H6',
    what: 'the right ABI version with two functions only',
    run: (w) =>
      withLib(
        w,
        sharedLib(
          w,
          'two',
          `unsigned tl_abi_version(void) { return ${ABI_VERSION}; }\nconst char *tl_backend_name(void) { return "cpu"; }\n`,
        ),
        /lacks a function of ABI \d+/,
      ),
  },
  {
    id: 'H7',
    what: 'the Vulkan library with --backend cpu',
    run: withVulkan((w) => withLib(w, VULKAN_LIB, /is the vulkan engine, not cpu/)),
  },
  {
    id: 'H8',
    what: 'the library deleted (the set-up rebuilds it)',
    run: (w) => {
      renameSync(CPU_LIB, `${CPU_LIB}.away`);
      try {
        const r = w.command('node', ['scripts/setup.mjs', '--native']);
        const o = O(w, QUICK);
        return okIf(
          r.code === 0 && o.code === 0 && existsSync(CPU_LIB),
          `set-up exit ${r.code}, oracle exit ${o.code}`,
        );
      } finally {
        if (existsSync(CPU_LIB)) rmSync(`${CPU_LIB}.away`);
        else renameSync(`${CPU_LIB}.away`, CPU_LIB);
      }
    },
  },
  {
    id: 'H9',
    what: "TIERLAB_LIB=/nonexistent/libx.so, TIERLAB_LIB='   '",
    run: (w) =>
      worst(
        ['/nonexistent/libx.so', '   '].map((lib) =>
          oneLine(O(w, [], { TIERLAB_LIB: lib }), /native library not found|TIERLAB_LIB=" {3}": wants a path/),
        ),
      ),
  },
  {
    id: 'H10',
    what: 'a library whose constructor calls abort()',
    run: (w) => {
      const r = O(w, [
        '--lib',
        sharedLib(
          w,
          'abort',
          '#include <stdlib.h>\n__attribute__((constructor)) static void boom(void) { abort(); }\n',
        ),
      ]);
      return {
        verdict: r.signal === 'SIGABRT' || r.code === 134 ? 'inherent' : r.code === 2 ? 'clean' : 'defect',
        observed: brief(r),
      };
    },
  },
  {
    id: 'H11',
    what: 'tl_abi_version() dereferencing NULL',
    run: (w) => {
      const r = O(w, [
        '--lib',
        sharedLib(w, 'segv', 'unsigned tl_abi_version(void) { return *(volatile unsigned *)0; }\n'),
      ]);
      return {
        verdict: r.signal === 'SIGSEGV' || r.code === 139 ? 'inherent' : r.code === 2 ? 'clean' : 'defect',
        observed: brief(r),
      };
    },
  },
];

const vulkan = (w: Workspace, env: Record<string, string>, ...args: string[]) =>
  O(w, ['--backend', 'vulkan', ...args], env);

export const ENVIRONMENT_TRIALS: readonly Trial[] = [
  {
    id: 'I1',
    what: 'TIERLAB_VK_UPLOAD=xyz (fifteen FAIL rows)',
    run: (w) =>
      refusedBeforeRuns(vulkan(w, { TIERLAB_VK_UPLOAD: 'xyz' }), /TIERLAB_VK_UPLOAD="xyz": wants staged or mapped/),
  },
  {
    id: 'I2',
    what: 'TIERLAB_VK_VALIDATION=garbage (read as 1)',
    run: (w) =>
      oneLine(vulkan(w, { TIERLAB_VK_VALIDATION: 'garbage' }), /TIERLAB_VK_VALIDATION="garbage": wants 0 or 1 or sync/),
  },
  {
    id: 'I3',
    what: 'TIERLAB_VK_VALIDATION=sync',
    run: withVulkan((w) => {
      const r = vulkan(w, { TIERLAB_VK_VALIDATION: 'sync' }, ...QUICK);
      return okIf(r.code === 0 && /validation \(sync\): 0 messages/.test(r.stdout), brief(r));
    }),
  },
  {
    id: 'I4',
    what: 'no Vulkan driver (fifteen FAIL rows)',
    run: withVulkan((w) =>
      refusedBeforeRuns(
        vulkan(w, { VK_ICD_FILENAMES: '/nonexistent/icd.json' }),
        /cannot create a vulkan engine .*VK_ERROR_INCOMPATIBLE_DRIVER/,
      ),
    ),
  },
  {
    id: 'I5',
    what: 'Vulkan --devices 5, --devices 0,1',
    run: withVulkan((w) =>
      worst([
        refusedBeforeRuns(vulkan(w, {}, '--devices', '5'), /device 5 out of range/),
        refusedBeforeRuns(vulkan(w, {}, '--devices', '0,1'), /cannot create a vulkan engine on devices \[0,1\]/),
      ]),
    ),
  },
  {
    id: 'I6',
    what: 'TIERLAB_MUTANT=../../../../../X (a counterexample written outside reports/)',
    ci: true,
    run: (w) =>
      oneLine(
        w.cli('properties', ['--runs', '5', '--report', w.report()], { env: { TIERLAB_MUTANT: '../../../../../X' } }),
        /TIERLAB_MUTANT="\.\.\/.*": wants a mutant id/,
      ),
  },
  {
    id: 'I7',
    what: 'TIERLAB_STRYKER_RUNS=abc (every test passed on 0 runs)',
    ci: true,
    run: (w) => {
      const r = w.command(
        process.execPath,
        ['node_modules/vitest/vitest.mjs', 'run', '--config', 'mutants/stryker/vitest.stryker.config.ts'],
        { env: { TIERLAB_STRYKER_RUNS: 'abc' } },
      );
      const said = /TIERLAB_STRYKER_RUNS wants an integer >= 1 \(runs per suite\), got 'abc'/.test(r.stdout + r.stderr);
      return {
        verdict: r.code !== 0 && said ? 'clean' : 'defect',
        observed: `exit ${r.code}${said ? ': names TIERLAB_STRYKER_RUNS' : ''}`,
      };
    },
  },
  {
    id: 'I8',
    what: 'npm test with no Vulkan driver (3 tests failed)',
    run: (w) => {
      const env = { VK_ICD_FILENAMES: '/nonexistent/icd.json' };
      const r = w.command(
        process.execPath,
        ['node_modules/vitest/vitest.mjs', 'run', 'test/oracle/oracle_vulkan.test.ts'],
        { env, timeoutMs: 300_000 },
      );
      const line =
        /VULKAN TESTS SKIPPED: missing a Vulkan driver \(lavapipe\); install them \(.*apt-get install mesa-vulkan-drivers\)/.test(
          r.stdout + r.stderr,
        );
      return okIf(
        r.code === 0 &&
          line &&
          /\d+ skipped/.test(r.stdout) &&
          !/failed/.test(r.stdout) &&
          missingVulkanPieces().length === 0,
        `exit ${r.code}${line ? ', skipped with the line' : ''}`,
      );
    },
  },
  {
    id: 'I9',
    what: 'the Vulkan oracle without a validation layer ("0 validation messages")',
    run: withVulkan((w) => {
      const r = vulkan(w, {}, ...QUICK);
      return okIf(
        r.code === 0 && /validation: off/.test(r.stdout) && !/validation messages/.test(r.stdout),
        brief(r).replace(/: .*/, `: ${r.stdout.trim().split('\n').pop() ?? ''}`),
      );
    }),
  },
];
