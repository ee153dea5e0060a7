// A webhook receiver on a real HTTP port of 127.0.0.1 that records what it is sent and answers
// as a test scripts it, and the receiver's signature check as src/webhooks/README.md publishes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type VerifyPolicyWebhook = (secret: string, header: string | undefined, rawBody: string, toleranceSeconds?: number, nowSeconds?: number) => boolean;

const README = new URL('../../src/webhooks/README.md', import.meta.url);
const MARK = '<!-- webhook-receiver: verify -->';

/** `verifyPolicyWebhook`, from the code block of the README that follows its mark, run as it is written there. */
export async function readmeVerifier(): Promise<VerifyPolicyWebhook> {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(MARK);
  if (start < 0) throw new Error(`${MARK} is missing from src/webhooks/README.md`);
  const block = /```js\n([\s\S]*?)```/.exec(text.slice(start));
  if (block === null) throw new Error('no js block follows the receiver mark');
  const dir = mkdtempSync(join(tmpdir(), 'pe-webhook-receiver-'));
  try {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, block[1]!);
    return ((await import(pathToFileURL(file).href)) as { verifyPolicyWebhook: VerifyPolicyWebhook }).verifyPolicyWebhook;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  port: number;
  received: ReceivedWebhook[];
  /** How the next requests to `path` are answered, in order (then 200); a function may answer itself. */
  script(path: string, answers: Array<number | ((res: ServerResponse) => void)>): void;
  /** Resolves once `count` requests to `path` arrived. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, Array<number | ((res: ServerResponse) => void)>>();
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const wake of waiters.splice(0)) wake();
      const answer = scripts.get(path)?.shift() ?? 200;
      if (typeof answer === 'function') answer(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const of = (path: string) => received.filter((r) => r.path === path);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    received,
    script(path, answers) {
      scripts.set(path, [...answers]);
    },
    async waitFor(path, count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (of(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${of(path).length} of ${count} requests to ${path} arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return of(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
