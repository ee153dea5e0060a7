import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { postWebhook, RESPONSE_READ_MAX_BYTES } from '../webhook-sender.js';

describe('posting a webhook', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const open = { allowHttp: true, allowPrivateNetworks: true };
  const post = (path: string, host = '127.0.0.1') => ({ url: `http://${host}:${receiver.port}${path}`, body: '{"id":"e1"}', headers: { 'content-type': 'application/json', 'x-policy-webhook-id': 'dlv_1' } });

  it('sends the body and headers and answers the status', async () => {
    receiver.script('/ok', [204]);
    expect(await postWebhook(post('/ok'), open)).toEqual({ statusCode: 204 });
    const [got] = await receiver.waitFor('/ok', 1);
    expect(got!.body).toBe('{"id":"e1"}');
    expect(got!.headers).toMatchObject({ 'content-type': 'application/json', 'x-policy-webhook-id': 'dlv_1', 'content-length': '11' });
  });

  it('follows no redirect', async () => {
    receiver.script('/moved', [(res) => res.writeHead(302, { location: '/ok-after-redirect' }).end()]);
    expect(await postWebhook(post('/moved'), open)).toEqual({ statusCode: 302 });
    expect(receiver.received.filter((r) => r.path === '/ok-after-redirect')).toEqual([]);
  });

  it('answers with the status without reading an endless answer', async () => {
    receiver.script('/endless', [
      (res) => {
        res.writeHead(200);
        const chunk = 'x'.repeat(RESPONSE_READ_MAX_BYTES);
        const timer = setInterval(() => res.write(chunk), 5);
        res.on('close', () => clearInterval(timer));
      },
    ]);
    expect(await postWebhook(post('/endless'), open)).toEqual({ statusCode: 200 });
  });

  it('refuses a loopback destination by default: by name after resolving it, and by literal address', async () => {
    const http = { allowHttp: true, allowPrivateNetworks: false };
    // The range is named, never the address: a tenant learns nothing of the network's names.
    const byName = await postWebhook(post('/never', 'localhost'), http);
    expect(byName).toEqual({ error: expect.stringMatching(/^localhost resolves to an? .*loopback.* address$/) });
    expect(JSON.stringify(byName)).not.toMatch(/127\.0\.0\.1|::1/);
    expect(await postWebhook(post('/never'), http)).toEqual({ error: expect.stringMatching(/127\.0\.0\.1, a loopback/) });
    expect(await postWebhook(post('/never'), { allowHttp: false, allowPrivateNetworks: true })).toEqual({ error: expect.stringMatching(/https/) });
    expect(receiver.received.filter((r) => r.path === '/never')).toEqual([]);
  });

  it('reports a connection that fails', async () => {
    const result = await postWebhook({ ...post('/x'), url: 'http://127.0.0.1:1/x' }, open);
    expect(result).toEqual({ error: expect.stringMatching(/^ECONNREFUSED/) });
  });
});
