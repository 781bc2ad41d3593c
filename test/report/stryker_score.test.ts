/**
 * The Stryker score is computed as Stryker computes it: (killed + timeout) over (killed +
 * timeout + survived + no coverage), errors and ignored mutants left out; a file that is
 * not a mutation-testing report is one line naming the field.
 */
import { describe, expect, it } from 'vitest';
import { ReportInputError } from '../../apps/report/json_shape.js';
import { strykerScore } from '../../apps/report/stryker_score.js';

const mutant = (status: string) => ({
  id: status,
  mutatorName: 'ConditionalExpression',
  status,
  location: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } },
});

describe('Stryker score', () => {
  it('counts detected over detected plus undetected, per file and in all', () => {
    const report = {
      schemaVersion: '2',
      thresholds: { high: 80, low: 60 },
      files: {
        'src/tier/uploader.ts': {
          language: 'typescript',
          source: '',
          mutants: ['Killed', 'Killed', 'Timeout', 'Survived', 'CompileError'].map(mutant),
        },
        'src/tier/enqueue.ts': {
          language: 'typescript',
          source: '',
          mutants: ['NoCoverage', 'Killed', 'Ignored'].map(mutant),
        },
      },
    };
    const s = strykerScore(report, 'mutation.json');
    expect(s).toMatchObject({ mutants: 8, killed: 3, timeout: 1, survived: 1, noCoverage: 1, excluded: 2 });
    expect(s.score).toBeCloseTo(4 / 6);
    expect(s.byFile).toEqual([
      { file: 'src/tier/enqueue.ts', detected: 1, undetected: 1, score: 0.5 },
      { file: 'src/tier/uploader.ts', detected: 3, undetected: 1, score: 0.75 },
    ]);
  });

  it('names what is wrong with a file that is not such a report', () => {
    expect(() => strykerScore({ files: { 'a.ts': { mutants: [{ id: 1 }] } } }, 'm.json')).toThrow(
      new ReportInputError('m.json: files["a.ts"].mutants[0].status should be string, is undefined'),
    );
    expect(() => strykerScore([], 'm.json')).toThrow('m.json: the file is not a JSON object');
    expect(() => strykerScore({ files: {} }, 'm.json')).toThrow('m.json: holds no mutants');
  });
});
