// GET /api/v1/policies/{module}/versions/{version}/source?locale=…: a deployed version's source
// printed in another locale, over real HTTP. Needs `npm run build` first (engine threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const PRICING = `Module acme.pricing.

# Doubles small amounts.
Rule price given amount as Int, produce Int:
  If amount is greater than 100:
    Fail with "amount too large".
  Return amount times 2.
`;

/** Words only the formatter's output in that locale has (the source's own names stay English). */
const LOCALE_WORDS: Record<string, string[]> = {
  'de-DE': ['Modul acme.pricing.', 'Regel price gegeben amount als Ganzzahl', 'Liefere amount mal 2.'],
  'zh-CN': ['模块 acme.pricing。', '规则 price 给定 amount', '返回 amount 乘以 2。'],
};

interface VersionSource {
  policyModule: string;
  version: number;
  locale: string;
  source: string;
}

interface Evaluated {
  result: unknown;
  error: string | null;
  code?: string;
}

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness();
  await h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source: PRICING, locale: 'en-US' });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('a version’s source in another locale', () => {
  const sourceOf = async (path: string) => (await h.signed(h.tenants.a, 'VIEWER').request<VersionSource>('GET', path)).body;
  /** What an evaluation decided (not how long it took). */
  const evaluateSource = async (source: string, locale: string, amount: number) => {
    const { body } = await h.signed(h.tenants.a, 'MEMBER').request<Evaluated>('POST', '/api/v1/policies/evaluate-source', {
      source,
      locale,
      functionName: 'price',
      context: { amount },
    });
    return { result: body.result, error: body.error, code: body.code };
  };

  it('answers the stored source without a locale', async () => {
    expect(await sourceOf('/api/v1/policies/acme.pricing/versions/1/source')).toEqual({
      policyModule: 'acme.pricing',
      version: 1,
      locale: 'en-US',
      source: PRICING,
    });
  });

  it.each(['de-DE', 'zh-CN'])('prints it in %s with that locale’s keywords, meaning the same', async (locale) => {
    const shown = await sourceOf(`/api/v1/policies/acme.pricing/versions/1/source?locale=${locale}`);
    expect(shown).toMatchObject({ policyModule: 'acme.pricing', version: 1, locale });
    for (const words of LOCALE_WORDS[locale]!) expect(shown.source).toContain(words);
    expect(shown.source).toContain('# Doubles small amounts.');
    for (const amount of [21, 101]) {
      expect(await evaluateSource(shown.source, locale, amount)).toEqual(await evaluateSource(PRICING, 'en-US', amount));
    }
  });

  it('round-trips: the de-DE text deployed and shown in en-US is the canonical en-US source', async () => {
    const german = await sourceOf('/api/v1/policies/acme.pricing/versions/1/source?locale=de');
    const deployed = await h.signed(h.tenants.a, 'ADMIN').request<{ version: number }>('POST', '/api/v1/policies', { source: german.source, locale: 'de-DE' });
    const back = await sourceOf(`/api/v1/policies/acme.pricing/versions/${deployed.body.version}/source?locale=en-US`);
    expect(back).toMatchObject({ locale: 'en-US', source: PRICING });
  });

  it('prints in the engine’s threads, once per tenant: another tenant’s view of the same source is printed for it anew', async () => {
    const path = '/api/v1/policies/lending.loan/versions/0/source?locale=de-DE';
    const itemsBefore = h.worker.stats().items;
    const first = await sourceOf(path);
    expect(h.worker.stats().items).toBe(itemsBefore + 1);
    // Kept for this tenant…
    expect(await sourceOf(path)).toEqual(first);
    expect(h.worker.stats().items).toBe(itemsBefore + 1);
    // …and not for the other one.
    const other = (await h.signed(h.tenants.b, 'VIEWER').request<VersionSource>('GET', path)).body;
    expect(other).toEqual(first);
    expect(h.worker.stats().items).toBe(itemsBefore + 2);
  });

  it('prints the built-in version 0', async () => {
    const shown = await sourceOf('/api/v1/policies/lending.loan/versions/0/source?locale=zh-CN');
    expect(shown).toMatchObject({ policyModule: 'lending.loan', version: 0, locale: 'zh-CN' });
    expect(shown.source).toContain('\n模块 lending.loan。\n');
  });

  it('refuses an unknown locale, listing the supported ones', async () => {
    const refused = await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.pricing/versions/1/source?locale=fr-FR'));
    expect(refused).toMatchObject({ status: 400, code: 'ERR_REQUEST_QUERY_INVALID' });
    expect(String(refused.body.error)).toContain('en-US, zh-CN, de-DE');
  });

  it('refuses a version that is not a whole number', async () => {
    const refused = await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.pricing/versions/1.5/source'));
    expect(refused).toMatchObject({ status: 400, code: 'ERR_REQUEST_PATH_INVALID' });
  });

  it('answers 404 for an unknown module or version', async () => {
    expect(await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.nothing/versions/1/source'))).toMatchObject({
      status: 404,
      code: 'ERR_POLICY_NOT_FOUND',
    });
    expect(await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.pricing/versions/99/source?locale=de-DE'))).toMatchObject({
      status: 404,
      code: 'ERR_POLICY_VERSION_NOT_FOUND',
    });
  });

  it('answers 404 for another tenant’s module, also with a bearer token', async () => {
    const path = '/api/v1/policies/acme.pricing/versions/1/source?locale=de-DE';
    expect(await failure(h.signed(h.tenants.b, 'VIEWER').request('GET', path))).toMatchObject({ status: 404, code: 'ERR_POLICY_NOT_FOUND' });
    expect(await failure((await h.bearer(h.tenants.b, 'VIEWER')).request('GET', path))).toMatchObject({ status: 404, code: 'ERR_POLICY_NOT_FOUND' });
  });
});
