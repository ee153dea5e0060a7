import { describe, expect, it } from 'vitest';
import type { EvaluationItem, ItemResult } from '../../engine/index.js';
import { createBuiltinDecide } from '../builtin-decide.js';

const result: ItemResult = { ok: true, value: 1, diagnostics: [], error: null, executionTimeMs: 0 };

describe('createBuiltinDecide', () => {
  it('evaluates the named rule of the named built-in module with the arguments as a positional context', async () => {
    const items: EvaluationItem[] = [];
    const decide = createBuiltinDecide({
      modules: [
        { moduleName: 'lending.loan', source: 'LOAN SOURCE', locale: 'en-US' },
        { moduleName: 'healthcare.claims', source: 'CLAIMS SOURCE', locale: 'zh-CN' },
      ],
      evaluate: async (item) => {
        items.push(item);
        return result;
      },
    });
    await expect(decide('acme', 'healthcare.claims', 'processClaim', [{ a: 1 }, 2])).resolves.toBe(result);
    expect(items).toEqual([{ source: 'CLAIMS SOURCE', locale: 'zh-CN', functionName: 'processClaim', context: [{ a: 1 }, 2] }]);
  });

  it('rejects a module the library does not have', async () => {
    const decide = createBuiltinDecide({ modules: [], evaluate: async () => result });
    await expect(decide('acme', 'lending.loan', 'evaluateLoanEligibility', [])).rejects.toThrow('no built-in policy module `lending.loan`');
  });
});
