/**
 * The reliability review's trials marked `ci` (test/reliability/trials.ts): at least one
 * of every class of failure it found that no other test covers (hangs and vacuous passes
 * on numeric options, counterexamples, stack traces, option and path injection,
 * environment variables, signals; bad scenarios are test/properties/scenario_json.test.ts,
 * the oracle's bad devices and a truncated library test/oracle/oracle_cli.test.ts), and of
 * the second round's (files that are not files, vacuous success, control characters,
 * foreign libraries, interruptions with scratch folders, TMPDIR a file, garbage
 * variables). Each must come out clean (one line and the exit code of its kind), ok (the
 * correct result) or skipped (a trial this machine cannot stage, with the reason).
 * No verdict waits on a clock: interruptions go at a point of the run (interrupt.ts),
 * and the time limits of the commands are safety nets. `npm run reliability` runs every
 * trial.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from './tools.js';
import { TRIALS } from './trials.js';

describe('reliability trials', () => {
  for (const t of TRIALS.filter((x) => x.ci === true)) {
    // the trial's own points of the run bound it; this limit is a safety net far past
    // what the slowest machine needs, so a busy one cannot fail a trial on time
    it(`${t.id}: ${t.what}`, { timeout: 1_800_000 }, async () => {
      const w = new Workspace(resolve('.'));
      try {
        const o = await t.run(w);
        expect(['clean', 'ok', 'skipped'], o.observed).toContain(o.verdict);
      } finally {
        rmSync(w.dir, { recursive: true, force: true });
      }
    });
  }
});

describe('the last lines of defence', () => {
  const node = (code: string, env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });

  it('an unexpected error is one line saying "internal error", where, and what to report; exit 70', () => {
    const r = node(
      "import { reportUnexpectedErrors } from './apps/cli/run_command.ts'; reportUnexpectedErrors('replay'); null.x;",
    );
    expect(r.status).toBe(70);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^replay: internal error: TypeError: .* \(at .*:\d+:\d+\); please report it with the command: npm run replay/,
    );
  });

  it("bad input that escapes a command's own checks is still one line and exit 2", () => {
    const r = node(
      "import { reportUnexpectedErrors } from './apps/cli/run_command.ts'; import { InputError } from './src/input/input_error.ts'; reportUnexpectedErrors('x'); throw new InputError('f.json', 'a: bad');",
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('x: f.json: a: bad\n');
  });

  it('a machine without glslc or a Vulkan driver is told what to install, in one line', () => {
    const r = node(
      "import { missingVulkanPieces, vulkanSkipLine } from './scripts/vulkan_toolchain.mjs'; process.stdout.write(vulkanSkipLine(missingVulkanPieces()));",
      {
        GLSLC: 'no-such-glslc',
        VK_ICD_FILENAMES: '/nonexistent/icd.json',
      },
    );
    // what else is missing depends on the machine; these two must be named, with their packages
    expect(r.stdout.split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(
      /^VULKAN TESTS SKIPPED: missing .*the shader compiler glslc.*, a Vulkan driver \(lavapipe\).*; install them \(Debian\/Ubuntu, as root: apt-get install .*glslc mesa-vulkan-drivers/,
    );
  });
});
