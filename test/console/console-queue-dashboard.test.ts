// One sign-in for the console and the operators' queue dashboard, in headless Chromium against the
// built service: an operator (a token of the operator tenant) signed in to the console opens the
// dashboard from the session bar without its token form, by keyboard, and comes back through the
// dashboard's Console link still signed in; signing out of the console ends the dashboard's cookie.
// A console user of another tenant sees no way there, and the dashboard refuses its token.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { describeWithChromium } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, launchConsoleBrowser, lowContrastText, openConsolePage, startConsoleService, STEP_TIMEOUT_MS, type ConsoleService } from './support/console-harness.js';

/** The service's default OPERATOR_TENANT. */
const OPERATORS = 'operators';
const BOARD_COOKIE = 'pe_operator';

describeWithChromium('the operator console (one sign-in for the queue dashboard)', (executablePath) => {
  let service: ConsoleService;
  let browser: Browser;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    service = await startConsoleService('console-board');
    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(() => closeConsoleSuite(browser, service));

  /** Signs in to the console with a token of `tenantId`, waiting until the dashboard has answered whether it opens for it. */
  async function signInAs(page: Page, role: Role, tenantId: string): Promise<void> {
    const asked = page.waitForResponse((response) => new URL(response.url()).pathname === '/admin/queues/' && response.request().method() === 'HEAD');
    await page.getByLabel('Bearer token').fill(await service.tokenFor(role, tenantId));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('role').textContent(), { timeout: STEP_TIMEOUT_MS }).toBe(role);
    await asked;
  }

  const boardCookie = async (context: BrowserContext) => (await context.cookies()).find((cookie) => cookie.name === BOARD_COOKIE);

  it('takes an operator from the console to the dashboard and back without a second sign-in', async () => {
    const { context, page } = await openConsolePage(browser, service, { viewport: DESKTOP, problems: pageProblems });
    const visited: string[] = [];
    page.on('framenavigated', (frame) => frame === page.mainFrame() && visited.push(new URL(frame.url()).pathname));
    try {
      await signInAs(page, 'ADMIN', OPERATORS);
      const button = page.getByRole('button', { name: 'Queue dashboard' });
      expect(await button.isVisible()).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);

      // By keyboard: the button, Enter; the dashboard with job actions (ADMIN) opens, its token form never shows.
      await button.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(`${service.base}/admin/queues-admin/**`);
      await expect.poll(() => page.title()).toMatch(/Queues/);
      expect(visited).not.toContain('/admin/login');
      const cookie = await boardCookie(context);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
      // The cookie ends when the token does (an hour here), not with a longer life of its own.
      expect(cookie!.expires * 1000).toBeLessThanOrEqual(Date.now() + 3_600_000);

      // Back through the dashboard's Console link: still signed in, at the console's first page.
      await page.locator('ul[class^="actions"] > li').last().getByRole('button').click();
      await page.getByRole('menuitem', { name: 'Console' }).click();
      await page.waitForURL(`${service.base}/console`);
      await expect.poll(() => page.getByTestId('tenant').textContent()).toBe(OPERATORS);
      expect(await page.getByLabel('Bearer token').count()).toBe(0);

      // Signing out of the console signs out of the dashboard too.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      await expect.poll(() => boardCookie(context)).toBeUndefined();
      await page.goto(`${service.base}/admin/queues/`);
      await page.waitForURL(`${service.base}/admin/login`);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('offers a console user of another tenant no way to the dashboard, which refuses its token', async () => {
    const { context, page } = await openConsolePage(browser, service, { viewport: DESKTOP, problems: pageProblems });
    try {
      await signInAs(page, 'OWNER', service.tenant.tenantId);
      expect(await page.getByRole('button', { name: 'Queue dashboard' }).count()).toBe(0);
      expect(await page.getByTestId('queue-dashboard').isHidden()).toBe(true);

      // Posting the token to the dashboard's sign-in as the button would: refused, no cookie.
      const token = await service.tokenFor('OWNER');
      const answer = page.waitForResponse((response) => new URL(response.url()).pathname === '/admin/login');
      await page.evaluate((value) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/admin/login';
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = 'token';
        input.value = value;
        form.append(input);
        document.body.append(form);
        form.submit();
      }, token);
      expect((await answer).status()).toBe(403);
      expect(await page.getByRole('alert').textContent()).toContain(`the queue dashboard needs a token of the operator tenant \`${OPERATORS}\``);
      expect(await boardCookie(context)).toBeUndefined();
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
