// The console's workflow list and the actions on a workflow's page, in headless Chromium against the
// built service (API and worker in one process). A MEMBER lists the tenant's workflows as the API
// pages them, filters them and pages through them, and tells approved from rejected ones by their
// outcome badge; on a waiting workflow's page it approves with the keyboard alone, rejects, backs
// out of a cancel and then cancels, each behind a confirmation; a signal the workflow no longer
// awaits is refused with the service's message. A VIEWER is told the list is for members. The pages
// fit a 390×844 phone. With CONSOLE_SCREENSHOTS=1 the screenshots go to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { describeWithChromium, type BearerCall } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, fitsWidth, heading, launchConsoleBrowser, lowContrastText, openConsolePage, PHONE, SCREENSHOTS, startConsoleService, STEP_TIMEOUT_MS, unnamedControls, type ConsoleService, type Viewport } from './support/console-harness.js';

const MODULE = 'acme.lending';
const WORKFLOW = 'originate';
const SIGNAL = 'underwriter-approval';
const SOURCE = `Module ${MODULE}.

Rule adult given age as Int, produce Bool:
  Return age is at least 18.

Workflow ${WORKFLOW} given age as Int:
  Step check: adult(age).
  Step review: Await "${SIGNAL}".
`;
/** Workflows that a rule ends at once with false: with the others, more than one page of 10. */
const REFUSED = 10;

interface Item {
  workflowId: string;
  status: string;
  finalResult: boolean | null;
}
interface ListPage {
  content: Item[];
  totalElements: number;
}

describeWithChromium('the operator console (workflow list and actions)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  const pageProblems: string[] = [];
  const ids: Record<'approveMe' | 'rejectMe' | 'cancelMe' | 'conflict' | 'approvedBefore' | 'waiting', string> = {} as never;

  const listIds = async (query = '') => {
    const answer = await call<ListPage>(tenant, 'MEMBER', 'GET', `/api/v1/workflows${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.content.map((item) => item.workflowId);
  };
  const stateOf = async (id: string) => (await call<{ status: string; finalResult: boolean | null }>(tenant, 'MEMBER', 'GET', `/api/v1/workflows/${id}`)).body;
  const start = async (age: number) => {
    const answer = await call<{ workflowId: string }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: MODULE, workflow: WORKFLOW, context: { age } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.workflowId;
  };
  /** Polls until `check` holds (expect.poll is for tests, not their set-up). */
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (const started = Date.now(); Date.now() - started < STEP_TIMEOUT_MS; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (await check()) return;
    }
    throw new Error(`${what} did not happen in time`);
  };
  const untilStatus = (id: string, status: string) => until(async () => (await stateOf(id)).status === status, `workflow ${id} ${status}`);

  beforeAll(async () => {
    service = await startConsoleService('console-workflows');
    ({ base, call, tenant } = service);
    const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SOURCE, locale: 'en-US' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    for (let i = 0; i < REFUSED; i += 1) await start(12);
    for (const key of ['approvedBefore', 'approveMe', 'rejectMe', 'cancelMe', 'conflict', 'waiting'] as const) {
      ids[key] = await start(30);
      await untilStatus(ids[key], 'WAITING');
    }
    const approved = await call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${ids.approvedBefore}/signals`, { signal: SIGNAL, approved: true });
    expect(approved.status).toBe(200);
    await untilStatus(ids.approvedBefore, 'COMPLETED');
    // The list shows each workflow's stored summary, written after its events: wait for the last ones.
    await until(async () => (await call<ListPage>(tenant, 'MEMBER', 'GET', '/api/v1/workflows?status=COMPLETED')).body.totalElements === REFUSED + 1, 'the summaries');
    browser = await launchConsoleBrowser(executablePath);
  }, 180_000);

  afterAll(() => closeConsoleSuite(browser, service));

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });
  const shownIds = (page: Page) => page.locator('table.workflow-table tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-workflow-id')));
  const rowOf = (page: Page, id: string) => page.locator(`table.workflow-table tbody tr[data-workflow-id="${id}"]`);
  const stateStatus = (page: Page) => page.getByTestId('workflow-state').getByTestId('status').textContent();
  const stateOutcome = (page: Page) => page.getByTestId('workflow-state').locator('dd').nth(1).textContent();
  const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');
  const dialog = (page: Page) => page.getByRole('dialog');

  it('lists the workflows as the API pages them, filters them and tells approved from rejected', async () => {
    const { context, page } = await openConsole(DESKTOP, 'MEMBER');
    try {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Workflows' }).click();
      await expect.poll(() => heading(page)).toBe('Workflows');
      await expect.poll(() => shownIds(page)).toEqual(await listIds());
      expect(await page.getByTestId('workflow-page-status').textContent()).toBe(`Page 1 of 1 · ${REFUSED + 6} workflows`);

      // The outcome beside the status: approved and rejected look apart; a waiting one has none.
      const approvedRow = rowOf(page, ids.approvedBefore);
      expect(await approvedRow.getByTestId('status').textContent()).toBe('COMPLETED');
      expect(await approvedRow.getByTestId('outcome').textContent()).toBe('APPROVED');
      const refusedRow = page.locator('table.workflow-table tbody tr').filter({ has: page.getByTestId('outcome').filter({ hasText: 'REJECTED' }) });
      expect(await refusedRow.count()).toBe(REFUSED);
      const colours = await page.evaluate(() =>
        ['approved', 'rejected'].map((outcome) => getComputedStyle(document.querySelector(`.outcome-${outcome}`)!).backgroundColor),
      );
      expect(colours[0]).not.toBe(colours[1]);
      const waitingRow = rowOf(page, ids.waiting);
      expect(await waitingRow.getByTestId('status').textContent()).toBe('WAITING');
      expect(await waitingRow.getByTestId('outcome').count()).toBe(0);
      expect(await waitingRow.locator('td[data-label="Current step"]').textContent()).toBe('review');
      expect(await unnamedControls(page)).toEqual([]);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'workflows.png'), fullPage: true });

      // A status filter, sent from the keyboard (Enter in a field submits the form).
      await page.getByLabel('Status').selectOption('WAITING');
      await page.getByLabel('Policy module').fill(MODULE);
      await page.getByLabel('Policy module').press('Enter');
      await expect.poll(() => shownIds(page)).toEqual(await listIds(`?status=WAITING&policyModule=${MODULE}`));
      expect(await shownIds(page)).toHaveLength(5);
      await page.getByLabel('Workflow', { exact: true }).fill('nothing-of-that-name');
      await page.getByLabel('Workflow', { exact: true }).press('Enter');
      await expect.poll(() => page.locator('.results').textContent()).toBe('No workflows match these filters.');

      // Start times typed in UTC as YYYY-MM-DD HH:MM: a locale's spelling is refused at the field; a range that ended before them finds none.
      await page.getByLabel('Workflow', { exact: true }).fill('');
      await page.getByLabel('Started from (UTC)').fill('28.11.2026 14:05');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.getByTestId('workflow-filter-error').textContent()).toContain('“Started from” must be a UTC time written YYYY-MM-DD HH:MM');
      expect(await page.getByLabel('Started from (UTC)').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Started from (UTC)').fill('2020-01-01 00:00');
      await page.getByLabel('Started before (UTC)').fill('2020-01-01 10:30');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.locator('.results').textContent()).toBe('No workflows match these filters.');
      expect(page.url()).toContain(`before=${encodeURIComponent('2020-01-01T10:30:59.999Z')}`);
      expect(await page.getByLabel('Started before (UTC)').inputValue()).toBe('2020-01-01 10:30');
      expect(await page.getByTestId('workflow-filter-error').isHidden()).toBe(true);

      // Pages of 10: Next page with the keyboard, and back.
      await page.getByRole('link', { name: 'Clear' }).click();
      await expect.poll(() => shownIds(page)).toHaveLength(REFUSED + 6);
      await page.getByLabel('Per page').selectOption('10');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => shownIds(page)).toEqual(await listIds('?size=10'));
      expect(await page.getByTestId('workflow-page-status').textContent()).toBe(`Page 1 of 2 · ${REFUSED + 6} workflows`);
      await page.getByRole('button', { name: 'Next page' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => shownIds(page)).toEqual(await listIds('?size=10&page=1'));
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await expect.poll(() => shownIds(page)).toEqual(await listIds('?size=10'));

      // A phone: one column, nothing wider than the screen.
      await page.setViewportSize(PHONE);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('approves with the keyboard alone, rejects, and cancels after backing out once, each confirmed', async () => {
    const { context, page } = await openConsole(DESKTOP, 'MEMBER');
    try {
      // From the list to the workflow with the keyboard.
      await page.goto(`${base}/console#/workflows?status=WAITING`);
      await expect.poll(() => shownIds(page)).toContain(ids.approveMe);
      await rowOf(page, ids.approveMe).getByRole('link').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page)).toBe(`Workflow ${WORKFLOW}`);
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      expect(await page.locator('#awaited-signal').textContent()).toBe(`Step review awaits the signal “${SIGNAL}”.`);
      expect(await stateOutcome(page)).toBe('—');
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'workflow-waiting.png'), fullPage: true });
      await page.getByRole('heading', { level: 1 }).focus();
      await page.keyboard.press('Tab');
      expect(await focusedText(page)).toBe('Approve');
      await page.keyboard.press('Enter');
      await expect.poll(() => dialog(page).getByRole('heading').textContent()).toBe(`Approve step review of workflow ${WORKFLOW}?`);
      // Enter alone never confirms: the dialog's first focus is on the way out.
      expect(await focusedText(page)).toBe('Cancel');
      expect(await lowContrastText(page)).toEqual([]);
      await page.keyboard.press('Tab');
      expect(await focusedText(page)).toBe('Approve');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('action-outcome').textContent()).toBe('Approved: the signal was sent.');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('action-outcome');
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('COMPLETED');
      expect(await stateOutcome(page)).toBe('APPROVED');
      expect(await page.locator('.workflow-actions').count()).toBe(0);
      expect(await stateOf(ids.approveMe)).toMatchObject({ status: 'COMPLETED', finalResult: true });
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);

      // Reject: the workflow completes with false at once.
      await page.goto(`${base}/console#/workflows/${ids.rejectMe}`);
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      await page.getByRole('button', { name: 'Reject' }).click();
      await dialog(page).getByRole('button', { name: 'Reject' }).click();
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('COMPLETED');
      expect(await stateOutcome(page)).toBe('REJECTED');
      expect(await stateOf(ids.rejectMe)).toMatchObject({ status: 'COMPLETED', finalResult: false });

      // Cancel: Escape backs out and changes nothing; confirmed, it compensates and ends CANCELLED.
      await page.goto(`${base}/console#/workflows/${ids.cancelMe}`);
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      await page.getByRole('button', { name: 'Cancel the workflow' }).click();
      expect(await focusedText(page)).toBe('Keep it');
      await page.keyboard.press('Escape');
      expect(await dialog(page).count()).toBe(0);
      expect(await focusedText(page)).toBe('Cancel the workflow');
      expect((await stateOf(ids.cancelMe)).status).toBe('WAITING');
      await page.keyboard.press('Enter');
      await dialog(page).getByRole('button', { name: 'Cancel the workflow' }).click();
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('CANCELLED');
      expect(await stateOutcome(page)).toBe('—');
      expect(await page.locator('.workflow-actions').count()).toBe(0);
      expect((await stateOf(ids.cancelMe)).status).toBe('CANCELLED');

      // The list shows the outcomes apart.
      await page.goto(`${base}/console#/workflows?status=COMPLETED`);
      await expect.poll(() => rowOf(page, ids.rejectMe).getByTestId('outcome').textContent(), { timeout: STEP_TIMEOUT_MS }).toBe('REJECTED');
      expect(await rowOf(page, ids.approveMe).getByTestId('outcome').textContent()).toBe('APPROVED');
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows the service’s refusal of a signal the workflow no longer awaits', async () => {
    const { context, page } = await openConsole(PHONE, 'MEMBER');
    try {
      // The page's event stream is held back, so that it still offers Approve once the signal went in.
      let releaseStream!: () => void;
      const streamHeld = new Promise<void>((resolve) => {
        releaseStream = resolve;
      });
      await page.route('**/events/stream*', async (route) => {
        await streamHeld;
        await route.continue();
      });
      await page.goto(`${base}/console#/workflows/${ids.conflict}`);
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      const signalled = await call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${ids.conflict}/signals`, { signal: SIGNAL, approved: false });
      expect(signalled.status).toBe(200);
      await page.getByRole('button', { name: 'Approve' }).click();
      await dialog(page).getByRole('button', { name: 'Approve' }).click();
      const notice = page.getByTestId('action-outcome').getByRole('alert');
      await expect.poll(() => notice.textContent()).toContain('The service refused the request.');
      expect(await notice.textContent()).toContain('ERR_WORKFLOW_STATE_CONFLICT');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('action-outcome');
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      // The browser logs the 409 it was answered: that refusal is what this case asks for.
      const refused = pageProblems.filter((problem) => /status of 409/.test(problem));
      expect(refused).toHaveLength(1);
      pageProblems.splice(pageProblems.indexOf(refused[0]!), 1);
      releaseStream();
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('COMPLETED');
      expect(await stateOutcome(page)).toBe('REJECTED');
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('tells a VIEWER the workflows are for members', async () => {
    const { context, page } = await openConsole(DESKTOP, 'VIEWER');
    try {
      await page.getByRole('link', { name: 'Workflows' }).click();
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (VIEWER) may not see this: workflows are for members');
      expect(await page.locator('table.workflow-table').count()).toBe(0);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
