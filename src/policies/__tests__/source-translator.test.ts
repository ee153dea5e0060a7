import { describe, expect, it } from 'vitest';
import { EngineFailureCode, type FormatOutcome } from '../../engine/index.js';
import { PolicyRegistryError } from '../policy-errors.js';
import type { SourceFormatter } from '../engine-work.js';
import { createSourceTranslator } from '../source-translator.js';

const PRICING = { text: 'Module acme.pricing.\n', hash: 'hash-pricing', locale: 'en-US' };
const SCORING = { text: 'Module acme.scoring.\n', hash: 'hash-scoring', locale: 'en-US' };

// The engine is the edge of this unit: a stand-in records who asked it to format what.
function recordingFormatter(answer: (source: string, target: string) => FormatOutcome = (source, target) => ({ kind: 'formatted', ok: true, text: `${source} in ${target}`, executionTimeMs: 1 })) {
  const calls: string[] = [];
  const format: SourceFormatter = async (tenantId, source, locale, targetLocale) => {
    calls.push(`${tenantId}: ${source.trim()} ${locale}→${targetLocale}`);
    return answer(source, targetLocale);
  };
  return { format, calls };
}

describe('createSourceTranslator', () => {
  it('formats in the engine once per tenant, source and locale, and never answers one tenant from another’s cache', async () => {
    const { format, calls } = recordingFormatter();
    const translate = createSourceTranslator(format);
    expect(await translate('acme', PRICING, 'de-DE')).toBe(`${PRICING.text} in de-DE`);
    expect(await translate('acme', PRICING, 'de-DE')).toBe(`${PRICING.text} in de-DE`);
    // Another tenant viewing the same source pays the same engine trip: nothing to time.
    expect(await translate('globex', PRICING, 'de-DE')).toBe(`${PRICING.text} in de-DE`);
    await translate('acme', PRICING, 'zh-CN');
    await translate('globex', PRICING, 'de-DE');
    expect(calls).toEqual([
      'acme: Module acme.pricing. en-US→de-DE',
      'globex: Module acme.pricing. en-US→de-DE',
      'acme: Module acme.pricing. en-US→zh-CN',
    ]);
  });

  it('keeps each tenant’s translations within its own share: one tenant’s many cannot evict another’s', async () => {
    const { format, calls } = recordingFormatter();
    // Room for one translation per tenant.
    const translate = createSourceTranslator(format, { charsPerTenant: 40 });
    await translate('globex', SCORING, 'de-DE');
    for (const target of ['de-DE', 'zh-CN', 'de-DE', 'zh-CN'] as const) await translate('acme', PRICING, target);
    calls.length = 0;
    await translate('globex', SCORING, 'de-DE');
    expect(calls).toEqual([]);
  });

  it('forgets the least recently active tenant’s translations first when too many tenants are kept', async () => {
    const { format, calls } = recordingFormatter();
    const translate = createSourceTranslator(format, { tenants: 2 });
    await translate('a', PRICING, 'de-DE');
    await translate('b', PRICING, 'de-DE');
    await translate('a', PRICING, 'de-DE');
    await translate('c', PRICING, 'de-DE');
    calls.length = 0;
    await translate('a', PRICING, 'de-DE');
    await translate('b', PRICING, 'de-DE');
    expect(calls).toEqual(['b: Module acme.pricing. en-US→de-DE']);
  });

  it('answers a stopped thread or a timed-out print with a 503 to retry, anything else as a defect, and keeps none', async () => {
    let code: string = EngineFailureCode.THREAD_STOPPED;
    const { format, calls } = recordingFormatter(() => ({ kind: 'formatted', ok: false, code, error: `${code} failed`, diagnostics: [], executionTimeMs: 0 }));
    const translate = createSourceTranslator(format);
    const stopped = await translate('acme', PRICING, 'de-DE').catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(PolicyRegistryError);
    expect(stopped).toMatchObject({ status: 503, code: EngineFailureCode.THREAD_STOPPED });
    // A print that ran out of wall time (EVALUATION_TIMEOUT_MS, on a loaded engine) may pass too.
    code = 'PL4004';
    const timedOut = await translate('acme', PRICING, 'de-DE').catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(PolicyRegistryError);
    expect(timedOut).toMatchObject({ status: 503, code: 'PL4004' });
    code = 'PL1007';
    const broken = await translate('acme', PRICING, 'de-DE').catch((error: unknown) => error);
    expect(broken).toBeInstanceOf(Error);
    expect(broken).not.toBeInstanceOf(PolicyRegistryError);
    expect(calls).toHaveLength(3);
  });
});
