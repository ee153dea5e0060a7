// The console's Webhooks pages in headless Chromium against the built service, with a receiver on
// loopback (the service started with http and private networks allowed for it, and one attempt per
// delivery): an ADMIN subscribes through the form and sees the secret once, reads a deploy's
// delivery that the receiver refused, redelivers it and sees it succeed, and deletes the
// subscription through the confirmation dialog; a MEMBER is told the pages are for administrators.
// On a phone the pages fit the width. With CONSOLE_SCREENSHOTS=1 the screenshots go to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { describeWithChromium, startWebhookReceiver, type BearerCall, type WebhookReceiver } from '../support/index.js';
import {
  closeConsoleSuite,
  DESKTOP,
  fitsWidth,
  heading,
  launchConsoleBrowser,
  lowContrastText,
  openConsolePage,
  PHONE,
  SCREENSHOTS,
  startConsoleService,
  STEP_TIMEOUT_MS,
  unnamedControls,
  type ConsoleService,
  type Viewport,
} from './support/console-harness.js';

const SOURCE = `Module hooks.console.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

describeWithChromium('the operator console (webhooks)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  let receiver: WebhookReceiver;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startConsoleService('console-webhooks', {
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_FOLLOW_INTERVAL_MS: '200' },
    });
    ({ base, call, tenant } = service);
    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(async () => {
    await closeConsoleSuite(browser, service);
    await receiver?.close();
  });

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });
  const statusOf = (page: Page) => page.locator('table.delivery-table tbody tr').first().getByTestId('status').textContent();

  it('subscribes through the form showing the secret once, redelivers a refused delivery, and deletes after confirming', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    try {
      await page.goto(`${base}/console#/webhooks`);
      expect(await heading(page)).toBe('Webhooks');
      await page.getByText('No subscriptions yet.').waitFor();
      expect(await page.getByRole('link', { name: 'Webhooks', exact: true }).getAttribute('aria-current')).toBe('page');

      // Without an event the form says so and sends nothing.
      const url = `${receiver.baseUrl}/console`;
      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByRole('button', { name: 'Subscribe' }).click();
      expect(await page.locator('.webhook-form .form-error').textContent()).toBe('Choose at least one event.');
      // A refused address is the service's 400, shown in the form.
      await page.getByLabel('URL', { exact: true }).fill('https://user:pw@hooks.example.com/');
      await page.getByLabel('POLICY_DEPLOYED').check();
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await expect.poll(() => page.locator('.webhook-form .form-error').textContent()).toMatch(/^ERR_WEBHOOK_URL_NOT_ALLOWED: .*credentials/);

      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByRole('button', { name: 'Subscribe' }).click();
      const secret = await page.getByTestId('webhook-secret').textContent();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      await page.getByRole('link', { name: url }).waitFor();
      expect(await page.locator('table.webhook-table tbody tr td').allTextContents()).toEqual([url, 'POLICY_DEPLOYED', expect.stringMatching(/UTC$/), 'Delete']);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      await page.locator('main').screenshot({ path: join(SCREENSHOTS, 'webhooks.png') });

      // The secret is in no later answer: a new visit of the page shows none.
      await page.reload();
      await page.getByRole('link', { name: url }).waitFor();
      expect(await page.getByTestId('webhook-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret!);

      // A deploy's delivery, refused by the receiver, is DEAD after its one attempt.
      receiver.script('/console', [500]);
      const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SOURCE });
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      await page.getByRole('link', { name: url }).click();
      expect(await heading(page)).toBe('Webhook deliveries');
      await expect.poll(async () => (await page.reload(), await page.locator('table.delivery-table tbody tr').count()), { timeout: STEP_TIMEOUT_MS }).toBe(1);
      await expect.poll(async () => (await page.reload(), await statusOf(page)), { timeout: STEP_TIMEOUT_MS }).toBe('DEAD');
      const cells = await page.locator('table.delivery-table tbody tr td').allTextContents();
      expect(cells.slice(0, 6)).toEqual(['POLICY_DEPLOYED', 'DEAD', '1', 'HTTP 500', 'HTTP 500', '—']);

      await page.getByRole('button', { name: /^Redeliver POLICY_DEPLOYED/ }).click();
      expect(await page.getByRole('status').filter({ hasText: 'Redelivery' }).textContent()).toBe('Redelivery of POLICY_DEPLOYED queued: one more attempt now.');
      await expect.poll(async () => (await page.reload(), await statusOf(page)), { timeout: STEP_TIMEOUT_MS }).toBe('SUCCEEDED');
      expect((await page.locator('table.delivery-table tbody tr td').allTextContents()).slice(0, 4)).toEqual(['POLICY_DEPLOYED', 'SUCCEEDED', '2', 'HTTP 200']);
      expect(receiver.received.filter((r) => r.path === '/console')).toHaveLength(2);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      await page.locator('main').screenshot({ path: join(SCREENSHOTS, 'webhook-deliveries.png') });

      // Delete: Cancel keeps it, confirming deletes it.
      await page.getByRole('link', { name: 'Webhooks' }).first().click();
      await page.getByRole('button', { name: `Delete the subscription of ${url}` }).click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.getByRole('heading').textContent()).toBe('Delete this subscription?');
      expect(await lowContrastText(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('link', { name: url }).count()).toBe(1);
      await page.getByRole('button', { name: `Delete the subscription of ${url}` }).click();
      await dialog.getByRole('button', { name: 'Delete subscription' }).click();
      await page.getByText('No subscriptions yet.').waitFor();
      expect(await page.getByRole('status').filter({ hasText: 'Deleted' }).textContent()).toBe(`Deleted the subscription of ${url}.`);
      const listed = await call<{ totalElements: number }>(tenant, 'ADMIN', 'GET', '/api/v1/webhooks');
      expect(listed.body.totalElements).toBe(0);
    } finally {
      await context.close();
    }
    // The one refusal the test asked for (the URL with credentials) is logged by the browser.
    expect(pageProblems.splice(0)).toEqual(['console error: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  }, 180_000);

  it('tells a MEMBER the pages are for administrators, and fits a phone', async () => {
    const { context, page } = await openConsole(PHONE, 'MEMBER');
    try {
      await page.goto(`${base}/console#/webhooks`);
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('Your role (MEMBER) may not see this: webhooks are for administrators');
      expect(await page.getByRole('button', { name: 'Subscribe' }).count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
    } finally {
      await context.close();
    }
    const { context: adminContext, page: adminPage } = await openConsole(PHONE, 'ADMIN');
    try {
      const created = await call<{ id: string }>(tenant, 'ADMIN', 'POST', '/api/v1/webhooks', { url: `${receiver.baseUrl}/${'long-path-'.repeat(20)}`, events: ['WORKFLOW_FAILED', 'ANOMALY_DETECTED'] });
      expect(created.status).toBe(201);
      await adminPage.goto(`${base}/console#/webhooks`);
      await adminPage.locator('table.webhook-table tbody tr').first().waitFor();
      expect(await fitsWidth(adminPage)).toBe(true);
      await adminPage.goto(`${base}/console#/webhooks/${created.body.id}`);
      await adminPage.getByText('No deliveries yet: events that happen from now on show here.').waitFor();
      expect(await fitsWidth(adminPage)).toBe(true);
      expect(await unnamedControls(adminPage)).toEqual([]);
    } finally {
      await adminContext.close();
    }
    expect(pageProblems.splice(0)).toEqual([]);
  }, 120_000);
});
