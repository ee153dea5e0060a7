// A status note becomes part of an audit record, whose canonical JSON has no form for an unpaired
// surrogate: such a note is a 400 before triage runs, so no status changes without its record.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyTriage } from '../../anomalies/index.js';
import { createLogger } from '../../logging/index.js';
import { createApp } from '../create-app.js';
import { createAnomalyRoutes } from '../routes/anomalies.js';

describe('PATCH /api/v1/audit/anomalies/{id}/status with a note', () => {
  const changes: Array<string | null> = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const triage = {
      changeStatus: async (_tenantId: string, id: string, status: string, note: string | null) => {
        changes.push(note);
        return { id, status };
      },
    } as unknown as AnomalyTriage;
    const app = createApp({
      logger: createLogger({ level: 'silent' }),
      idempotency: {} as never,
      tokenVerifier: { verify: async () => ({ subject: 'alice', tenantId: 'acme', role: 'ADMIN', authMethod: 'bearer' }) },
      rateLimiter: { points: 10, windowSeconds: 60, consume: async () => ({ allowed: true, limit: 10, remaining: 9, resetSeconds: 60, windowSeconds: 60 }) } as never,
      bodyLimitBytes: 1024,
      routes: [createAnomalyRoutes({ triage, settings: {} as never })],
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const patch = (body: string) =>
    fetch(`${base}/api/v1/audit/anomalies/a1/status`, {
      method: 'PATCH',
      headers: { authorization: 'Bearer t', 'x-tenant-id': 'acme', 'content-type': 'application/json' },
      body,
    });

  it('refuses unpaired surrogates with 400 ERR_ANOMALY_REQUEST_INVALID, before triage', async () => {
    for (const note of ['\\ud800', 'x\\udfff', '\\ude00\\ud83d']) {
      const answer = await patch(`{"status":"RESOLVED","note":"${note}"}`);
      expect(answer.status, note).toBe(400);
      expect(await answer.json()).toMatchObject({ result: null, code: 'ERR_ANOMALY_REQUEST_INVALID', error: expect.stringContaining('unpaired surrogates') });
    }
    expect(changes).toEqual([]);
  });

  it('names the first problem of a body the way every other body is refused', async () => {
    const refusal = async (body: string) => ((await (await patch(body)).json()) as { error: string }).error;
    expect(await refusal('[1]')).toBe('the request body must be a JSON object with `status` and `note` (got an array)');
    expect(await refusal('{"note":"x"}')).toBe('`status` is required');
    expect(await refusal('{"status":7}')).toBe('`status` must be one of OPEN, RESOLVED, DISMISSED (got a number)');
    expect(await refusal('{"status":"RESOLVED","extra":1}')).toBe('the request body has unknown field `extra`; it takes `status` and `note`');
    expect(await refusal('{"status":"CLOSED"}')).toBe('`status` must be one of OPEN, RESOLVED, DISMISSED (got `CLOSED`)');
    expect(changes).toEqual([]);
  });

  it('takes any other text, surrogate pairs included', async () => {
    expect((await patch('{"status":"RESOLVED","note":"fixed \\ud83d\\ude00"}')).status).toBe(200);
    expect((await patch('{"status":"DISMISSED","note":null}')).status).toBe(200);
    expect(changes).toEqual(['fixed 😀', null]);
  });
});
