/**
 * The second round's trials of what tierlab is handed (issue 32): files that are not
 * regular files or are far too big (L1), counterexamples that check nothing or name the
 * wrong property (L4), control characters and UTF-16 on their way to the terminal (L5),
 * and native libraries for another machine (L9). Each kind is tried in every command that
 * reads that kind of input, since the fix is at the one reader, the one loader, the one
 * escaper and the one library check.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { counterexample } from './trials_properties.js';
import {
  brief,
  hasControl,
  okIf,
  oneLine,
  worst,
  type Outcome,
  type Ran,
  type Trial,
  type Workspace,
} from './tools.js';

const CPU_LIB = 'native/build/libtierlab_cpu.so';
const REPLAY = 'properties/replays/dense-gemv-after-shutdown.json';

/** The ways a path can name something that is not a regular file. */
function notFiles(w: Workspace): [string, string][] {
  const dir = w.path('dir.json');
  mkdirSync(dir);
  return [
    ['a link to /dev/zero', w.special('zero.json', { link: '/dev/zero' })],
    ['a named pipe', w.special('fifo.json', 'fifo')],
    ['a directory', dir],
  ];
}

/** Every not-a-file through `run`: each one line, exit 2, naming what it is. */
function refuseNotFiles(w: Workspace, run: (path: string) => Ran): Outcome {
  return worst(
    notFiles(w).map(([what, path]) => {
      const o = oneLine(
        run(path),
        /is (a character device( \(such as \/dev\/zero\))?|a named pipe|a directory), not a file/,
      );
      return { ...o, observed: `${what}: ${o.observed}` };
    }),
  );
}

/** A fixture copied into the workspace with one file replaced by `make(path)`. */
function fixtureWith(w: Workspace, file: 'weights.bin' | 'manifest.json', make: (path: string) => void): string {
  const dir = w.path('fixture');
  cpSync('fixtures/tiny-moe', dir, { recursive: true });
  rmSync(join(dir, file));
  make(join(dir, file));
  return dir;
}

const oracle = (w: Workspace, ...args: string[]): Ran =>
  w.cli('oracle', ['--report', w.report(), ...args], { timeoutMs: 60_000 });

/** a fixed bug's file with `over` changed: a regression patch, a property */
function replayFile(w: Workspace, over: Record<string, unknown>): string {
  return w.file('regression.json', { ...(JSON.parse(readFileSync(REPLAY, 'utf8')) as object), ...over });
}

export const INPUT_TRIALS: readonly Trial[] = [
  {
    id: 'L1a',
    what: '--scenario a link to /dev/zero, a named pipe, a directory (a hang at 9.9 GiB, a block for ever)',
    ci: true,
    run: (w) => refuseNotFiles(w, (p) => w.cli('properties', ['--scenario', p, '--report', w.report()])),
  },
  {
    id: 'L1b',
    what: 'replay, mutants --replay and report counterexample of the same',
    run: (w) =>
      worst([
        refuseNotFiles(w, (p) => w.cli('replay', [p])),
        refuseNotFiles(w, (p) => w.cli('mutants', ['--replay', p])),
        refuseNotFiles(w, (p) => w.cli('report', ['counterexample', p, w.path('out.html')])),
      ]),
  },
  {
    id: 'L1c',
    what: "a fixture's weights.bin or manifest.json a link to /dev/zero or a named pipe",
    run: (w) =>
      worst(
        (['weights.bin', 'manifest.json'] as const).flatMap((file) => [
          oneLine(
            oracle(
              w,
              '--fixture',
              fixtureWith(w, file, (p) => symlinkSync('/dev/zero', p)),
            ),
            /is a character device .*not a file/,
          ),
          oneLine(oracle(w, '--fixture', fixtureWith(w, file, mkfifo)), /is a named pipe, not a file/),
        ]),
      ),
  },
  {
    id: 'L1d',
    what: 'a 5 MiB scenario, a sparse 1 GiB weights.bin (read only after a size check)',
    run: (w) => {
      const big = w.file('big.json', `{"devices": 1, "pad": "${'x'.repeat(5 << 20)}"}`);
      const fixture = fixtureWith(w, 'weights.bin', (p) => {
        writeFileSync(p, '');
        truncateSync(p, 1 << 30);
      });
      return worst([
        oneLine(w.cli('properties', ['--scenario', big, '--report', w.report()]), /bytes, over the 4194304 bytes/),
        oneLine(oracle(w, '--fixture', fixture), /weights.bin: has \d+ bytes after the last tensor/),
      ]);
    },
  },
  {
    id: 'L1e',
    what: 'report merge of a shard.json that is a named pipe; a report build over a properties.json that is one',
    run: (w) => {
      const shard = w.path('shard');
      mkdirSync(shard);
      mkfifo(join(shard, 'shard.json'));
      const dir = w.path('reports');
      mkdirSync(dir);
      mkfifo(join(dir, 'properties.json'));
      const build = w.cli('report', ['build', dir]);
      return worst([
        oneLine(w.cli('report', ['merge', shard, '--out', w.report()]), /is a named pipe, not a file/),
        okIf(
          build.code === 1 && /properties\.json: is a named pipe/.test(build.stdout + build.stderr),
          `build: ${brief(build)}`,
        ),
      ]);
    },
  },
  {
    id: 'L4a',
    what: 'properties --scenario of a counterexample replay refuses (version 99, unknown property, garbage choices, an extra key)',
    ci: true,
    run: (w) =>
      worst(
        [
          [{ version: 99 }, /version 99/],
          [{ property: 'NOPE' }, /"NOPE" is not a catalogued property/],
          [{ choices: ['x', -1] }, /choices\[0\]: expected an integer/],
          [{ extra: 1 }, /unknown key "extra"/],
        ].map(([over, line]) => {
          const file = w.file('cx.json', counterexample(over as Record<string, unknown>));
          return worst([
            oneLine(w.cli('properties', ['--scenario', file, '--report', w.report()]), line as RegExp),
            oneLine(w.cli('replay', [file]), line as RegExp),
          ]);
        }),
      ),
  },
  {
    id: 'L4b',
    what: 'mutants --replay of a fixed bug whose regression patch no longer brings it back (exit 0)',
    run: (w) => {
      // a patch that applies and changes nothing the run can see: a comment
      const file = replayFile(w, {
        regression: { file: 'src/tier/tier.ts', find: "The tier's public face", replace: "The tier's face" },
      });
      const r = w.cli('mutants', ['--replay', file], { timeoutMs: 180_000 });
      return okIf(
        r.code === 2 && /does not reproduce SPEC-MASK.*no longer checks its fix/.test(r.stderr),
        `exit ${r.code}: ${r.stderr.trim().split('\n').pop() ?? ''}`,
      );
    },
  },
  {
    id: 'L4c',
    what: 'a counterexample naming another property than its schedule violates (mutants --replay), or none (replay)',
    run: (w) => {
      const named = JSON.parse(readFileSync(REPLAY, 'utf8')) as { regression: unknown };
      const plain = w.file('cx.json', counterexample({ property: 'SAFE-NO-CRASH' }));
      const strict = replayFile(w, { property: 'SAFE-NO-CRASH', regression: named.regression });
      const r = w.cli('replay', [plain]);
      const m = w.cli('mutants', ['--replay', strict], { timeoutMs: 180_000 });
      return worst([
        // on the sources as they are no schedule violates anything: replay says so (documented, exit 0)
        okIf(r.code === 0 && /^no violation \(\d+ steps\)/m.test(r.stdout), `replay: ${brief(r)}`),
        okIf(
          m.code === 2 && /does not reproduce SAFE-NO-CRASH.*it violates SPEC-MASK instead/.test(m.stderr),
          `mutants --replay: exit ${m.code}: ${m.stderr.trim().split('\n').pop() ?? ''}`,
        ),
      ]);
    },
  },
  {
    id: 'L4d',
    what: 'a mutation run, an oracle-mutants run and a native-defects run over an empty catalogue (PASS 0/0)',
    run: (w) => {
      const empty = w.path('empty');
      mkdirSync(empty);
      return worst([
        oneLine(
          w.cli('mutants', ['--catalogue-only', '--catalogue-dir', empty, '--out', w.report()]),
          /no mutant selected: nothing to judge/,
        ),
        oneLine(
          w.cli('oracle_mutants', ['--catalogue-dir', empty, '--report', w.report()]),
          /the catalogue holds no mutant/,
        ),
        oneLine(w.cli('native_defects', ['--defects-dir', empty, '--report', w.report()]), /no native defect to run/),
      ]);
    },
  },
  {
    id: 'L5a',
    what: 'ESC, BEL, CR and NUL in a key name, a file name and a variable (a CR drew a fake PASS)',
    ci: true,
    run: (w) => {
      const key = w.file('keys.json', `{"devices": 1, "x\\u001b[2J\\u0007\\rPASS\\u0000": 1}`);
      const name = join(w.dir, 'no\u001b[31mfile\r.json');
      const runs: Ran[] = [
        w.cli('properties', ['--scenario', key, '--report', w.report()]),
        w.cli('replay', [name]),
        w.cli('replay', [key], { env: { TIERLAB_PIN: '\u001b]0;owned\u0007' } }),
      ];
      return worst(
        runs.map((r) => {
          const o = oneLine(r, /./);
          const raw = hasControl(r.stderr + r.stdout);
          return raw ? { verdict: 'defect', observed: `raw control characters: ${o.observed}` } : o;
        }),
      );
    },
  },
  {
    id: 'L5b',
    what: "a fixture's format field with ESC; a mutant title with ESC in --list; a UTF-16 scenario",
    run: (w) => {
      const fixture = fixtureWith(w, 'manifest.json', (p) => {
        const m = JSON.parse(readFileSync('fixtures/tiny-moe/manifest.json', 'utf8')) as Record<string, unknown>;
        writeFileSync(p, JSON.stringify({ ...m, format: '\u001b[2Jtierlab-moe' }));
      });
      const utf16 = w.file('u16.json', Buffer.from(`\ufeff{"devices": 1}`, 'utf16le'));
      const catalogue = w.path('catalogue');
      mkdirSync(catalogue);
      const src = readFileSync('mutants/catalogue/shutdown-no-wake.ts', 'utf8');
      writeFileSync(join(catalogue, 'shutdown-no-wake.ts'), src.replace(/title: '/, "title: '\\u001b[2J\\u0007"));
      const list = w.cli('mutants', ['--list', '--catalogue-dir', catalogue]);
      return worst([
        oneLine(oracle(w, '--fixture', fixture), /format/),
        oneLine(w.cli('properties', ['--scenario', utf16, '--report', w.report()]), /is UTF-16 text/),
        okIf(!hasControl(list.stdout + list.stderr), `--list: ${brief(list)}`),
      ]);
    },
  },
  {
    id: 'L9a',
    what: 'a library for another CPU, of the other word size, an executable, a script as the native library',
    ci: true,
    run: (w) => {
      const patched = (name: string, at: number, bytes: number[]): string => {
        const p = w.path(name);
        copyFileSync(CPU_LIB, p);
        const b = readFileSync(p);
        b.set(bytes, at);
        writeFileSync(p, b);
        return p;
      };
      const script = w.file('lib.so', '#!/bin/sh\necho hi\n');
      return worst([
        oneLine(oracle(w, '--lib', patched('arm.so', 18, [183, 0])), /an ELF library for AArch64 .* this machine is/),
        oneLine(oracle(w, '--lib', patched('w32.so', 4, [1])), /32-bit ELF file/),
        oneLine(oracle(w, '--lib', process.execPath), /an ELF executable, not a shared library/),
        oneLine(oracle(w, '--lib', script), /not an ELF file \(a script\)/),
        oneLine(
          w.cli('oracle', ['--report', w.report()], { env: { TIERLAB_LIB: patched('arm2.so', 18, [183, 0]) } }),
          /for AArch64/,
        ),
      ]);
    },
  },
];

/** A named pipe at `path`. */
function mkfifo(path: string): void {
  spawnSync('mkfifo', [path]);
}
