// The console's Audit chain and Workflows pages in headless Chromium against the built service
// (API and worker in one process). An ADMIN pages the chain newest first, narrows it by event type
// (alone, and with a policy function, which the API cannot combine in one call), and verifies it;
// a workflow with an Await step is opened from its audit record: the timeline shows it waiting,
// and after a signal sent over the API the signal and the completion come over the workflow's event
// stream, without a single poll of its events; the newest audit page grows by the records the audit
// stream pushes; a page whose stream is refused (workflow or audit) polls instead. A MEMBER opens
// the workflow by id and is told the audit chain is for administrators. Both pages fit a 390×844
// phone. With CONSOLE_SCREENSHOTS=1 the screenshots go to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { describeWithChromium, type BearerCall } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, fitsWidth, heading, launchConsoleBrowser, lowContrastText, openConsolePage, PHONE, SCREENSHOTS, startConsoleService, STEP_TIMEOUT_MS, type ConsoleService, type Viewport } from './support/console-harness.js';

const MODULE = 'acme.onboarding';
const RULE = 'adult';
const WORKFLOW = 'onboard';
const SIGNAL = 'approval';
const SOURCE = `Module ${MODULE}.

Rule ${RULE} given age as Int, produce Bool:
  Return age is at least 18.

Workflow ${WORKFLOW} given age as Int:
  Step check: ${RULE}(age).
  Step review: Await "${SIGNAL}" within 2 hours.
`;
/** Evaluations besides the deploy: more records than two pages of 10. */
const EVALUATIONS = 24;
/** Evaluations that fail (a context of the wrong type): the outcome filter's other side. */
const FAILED_EVALUATIONS = 3;
const PAGE_SIZE = 10;

interface AuditRecordView {
  seq: number;
  eventType: string;
  actorId: string;
}

describeWithChromium('the operator console (audit chain and workflows)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  const pageProblems: string[] = [];

  const auditSeqs = async (path: string) => {
    const answer = await call<AuditRecordView[]>(tenant, 'ADMIN', 'GET', path);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.map((record) => record.seq);
  };

  beforeAll(async () => {
    service = await startConsoleService('console-audit');
    ({ base, call, tenant } = service);

    const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SOURCE, locale: 'en-US' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    const items = Array.from({ length: EVALUATIONS }, (_, i) => ({ policyModule: MODULE, policyFunction: RULE, context: { age: 10 + i } }));
    const evaluated = await call(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate-source/batch', { items });
    expect(evaluated.status, JSON.stringify(evaluated.body)).toBe(200);
    const failing = Array.from({ length: FAILED_EVALUATIONS }, () => ({ policyModule: MODULE, policyFunction: RULE, context: { age: 'unknown' } }));
    const failed = await call<{ results: Array<{ error: string | null }> }>(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate-source/batch', { items: failing });
    expect(failed.body.results.filter((result) => result.error !== null)).toHaveLength(FAILED_EVALUATIONS);

    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(() => closeConsoleSuite(browser, service));

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });

  const shownSeqs = (page: Page) => page.locator('table.audit-table tbody tr').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-seq'))));
  const headingFocused = (page: Page) => page.evaluate(() => document.activeElement?.tagName === 'H1');
  const timelineTypes = (page: Page) => page.locator('ol.timeline li[data-event-type]').evaluateAll((items) => items.map((item) => item.getAttribute('data-event-type')));
  const stateStatus = (page: Page) => page.getByTestId('workflow-state').getByTestId('status').textContent();

  it('lists the chain newest first, pages with before, narrows by type and verifies it', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    try {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit chain' }).click();
      await expect.poll(() => heading(page)).toBe('Audit chain');
      expect(await headingFocused(page)).toBe(true);
      expect(await page.getByRole('link', { name: 'Audit chain' }).getAttribute('aria-current')).toBe('page');

      // Newest first, 10 per page; Older records is the API's `before` the last seq shown.
      await page.getByLabel('Per page').selectOption(String(PAGE_SIZE));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const firstPage = await auditSeqs(`/api/v1/audit?limit=${PAGE_SIZE}`);
      expect(firstPage).toHaveLength(PAGE_SIZE);
      await expect.poll(() => shownSeqs(page)).toEqual(firstPage);
      expect(firstPage).toEqual([...firstPage].sort((a, b) => b - a));
      await page.getByRole('button', { name: 'Older records' }).click();
      const secondPage = await auditSeqs(`/api/v1/audit?limit=${PAGE_SIZE}&before=${firstPage.at(-1)}`);
      await expect.poll(() => shownSeqs(page)).toEqual(secondPage);
      await page.getByRole('button', { name: 'Newer records' }).click();
      await expect.poll(() => shownSeqs(page)).toEqual(firstPage);

      // A type narrows to the API's list of that type.
      await page.getByLabel('Event type').selectOption('POLICY_DEPLOYED');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const deploys = await auditSeqs('/api/v1/audit/type/POLICY_DEPLOYED');
      expect(deploys.length).toBeGreaterThan(0);
      await expect.poll(() => shownSeqs(page)).toEqual(deploys);
      expect(await page.locator('table.audit-table tbody tr').first().textContent()).toContain('Policy deployed');

      // Type and policy function together: the policy's list, narrowed to the type by the page.
      await page.getByLabel('Event type').selectOption('POLICY_EVALUATED');
      await page.getByLabel('Policy module').fill(MODULE);
      await page.getByLabel('Policy function').fill(RULE);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const policyRecords = await call<AuditRecordView[]>(tenant, 'ADMIN', 'GET', `/api/v1/audit/policy/${MODULE}/${RULE}?limit=${PAGE_SIZE}`);
      const evaluatedOfPolicy = policyRecords.body.filter((record) => record.eventType === 'POLICY_EVALUATED').map((record) => record.seq);
      await expect.poll(() => shownSeqs(page)).toEqual(evaluatedOfPolicy);
      expect(await page.locator('.plan-note').textContent()).toContain('asks it for the policy function');
      expect(await lowContrastText(page)).toEqual([]);

      // One line per record: time (UTC, to the minute), type, function, version, actor, outcome; the payload on demand.
      await page.goto(`${base}/console#/audit?module=${MODULE}&function=${RULE}&size=50`);
      await expect.poll(() => page.locator('table.audit-table tbody tr').count()).toBe(EVALUATIONS + FAILED_EVALUATIONS);
      const firstRow = page.locator('table.audit-table tbody tr').first();
      expect(await page.locator('table.audit-table thead th').allTextContents()).toEqual(['Time', 'Type', 'Function', 'Version', 'Actor', 'Outcome', 'Payload']);
      expect(await firstRow.locator('td').first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      expect(await firstRow.locator('pre').isVisible()).toBe(false);
      await firstRow.getByText('Payload').focus();
      await page.keyboard.press('Enter');
      expect(await firstRow.locator('pre').isVisible()).toBe(true);
      expect(JSON.parse((await firstRow.locator('pre').textContent())!)).toMatchObject({ success: false });
      expect(await firstRow.locator('td[data-label="Outcome"]').textContent()).toBe('Failed');

      // The outcome: failed evaluations only, matched on the records the page reads.
      await page.getByLabel('Outcome').selectOption('failed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.locator('table.audit-table tbody tr').count()).toBe(FAILED_EVALUATIONS);
      expect(new Set(await page.locator('table.audit-table tbody td[data-label="Outcome"]').allTextContents())).toEqual(new Set(['Failed']));
      expect(page.url()).toContain('outcome=failed');
      await page.getByLabel('Outcome').selectOption('succeeded');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.locator('table.audit-table tbody tr').count()).toBe(EVALUATIONS);
      expect(new Set(await page.locator('table.audit-table tbody td[data-label="Outcome"]').allTextContents())).toEqual(new Set(['Succeeded']));

      // Times are typed in UTC as YYYY-MM-DD HH:MM; anything else is refused by the field, and the page stays.
      const urlBefore = page.url();
      await page.getByLabel('From (UTC)').fill('11/28/2026 2:05 PM');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.getByTestId('audit-filter-error').textContent()).toContain('“From” must be a UTC time written YYYY-MM-DD HH:MM');
      expect(await page.getByLabel('From (UTC)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('From (UTC)').evaluate((input) => input === document.activeElement)).toBe(true);
      await page.getByLabel('From (UTC)').fill('2026-02-31 10:00');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.getByTestId('audit-filter-error').textContent()).toContain('(got “2026-02-31 10:00”)');
      expect(page.url()).toBe(urlBefore);
      // A range around now includes every matching record; one that ends before them, none.
      const now = new Date();
      const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
      await page.getByLabel('From (UTC)').fill(minute(now.getTime() - 3_600_000));
      await page.getByLabel('To (UTC)').fill(minute(now.getTime() + 60_000));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.locator('table.audit-table tbody tr').count()).toBe(EVALUATIONS);
      expect(page.url()).toContain(`from=${encodeURIComponent(new Date(now.getTime() - 3_600_000).toISOString().slice(0, 16))}`);
      expect(await page.getByLabel('From (UTC)').inputValue()).toBe(minute(now.getTime() - 3_600_000));
      await page.getByLabel('To (UTC)').fill(minute(now.getTime() - 7_200_000));
      await page.getByLabel('From (UTC)').fill('');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.locator('.results .empty').textContent()).toBe('No records match these filters.');
      expect(await lowContrastText(page)).toEqual([]);

      // Verify: a bar while it runs, then valid with the API's count and head.
      await page.getByRole('link', { name: 'Clear' }).click();
      await expect.poll(() => shownSeqs(page)).toHaveLength(Math.min(25, firstPage[0]!));
      await page.getByRole('button', { name: 'Verify the chain' }).click();
      await expect.poll(() => page.getByTestId('chain-verdict').textContent()).toBe('valid');
      const verification = await call<{ valid: boolean; checked: number; headSeq: number; headHash: string }>(tenant, 'ADMIN', 'GET', '/api/v1/audit/verify');
      expect(verification.body.valid).toBe(true);
      expect(await page.getByTestId('chain-checked').textContent()).toBe(verification.body.checked.toLocaleString('en-US'));
      expect(await page.locator('.chain-verify').textContent()).toContain(verification.body.headHash);
      expect(await page.locator('.chain-verify progress').count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'audit.png'), fullPage: true });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('follows a workflow from its audit record: waiting, then the signal and the completion pushed by its stream', async () => {
    const started = await call<{ workflowId: string }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: MODULE, workflow: WORKFLOW, context: { age: 30 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const id = started.body.workflowId;
    // The first step's evaluation is audited with the workflow as actor: the page's way in.
    await expect
      .poll(async () => (await call<AuditRecordView[]>(tenant, 'ADMIN', 'GET', '/api/v1/audit/type/POLICY_EVALUATED?limit=5')).body.some((record) => record.actorId === `workflow:${id}`), { timeout: STEP_TIMEOUT_MS })
      .toBe(true);

    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    try {
      await page.goto(`${base}/console#/audit?type=POLICY_EVALUATED`);
      await page.getByRole('link', { name: `Workflow ${id}` }).first().click();
      await expect.poll(() => heading(page)).toBe(`Workflow ${WORKFLOW}`);
      expect(await headingFocused(page)).toBe(true);

      // Waiting for the signal: the state and the timeline say so.
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      expect(await timelineTypes(page)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED']);
      expect(await page.locator('li[data-event-type="SIGNAL_AWAITED"]').textContent()).toContain('Awaiting signal');
      expect(await page.getByTestId('timeline-now').textContent()).toContain('Waiting for a signal at step review');
      expect(await lowContrastText(page)).toEqual([]);

      // The page follows the event stream: from now on it never asks for the events list.
      await expect.poll(() => requested.some((path) => path.endsWith('/events/stream')), { timeout: STEP_TIMEOUT_MS }).toBe(true);
      const readsBefore = requested.length;

      // The signal goes over the API; the stream pushes it and the completion.
      const signalled = await call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${id}/signals`, { signal: SIGNAL, approved: true });
      expect(signalled.status, JSON.stringify(signalled.body)).toBe(200);
      await expect.poll(() => timelineTypes(page), { timeout: STEP_TIMEOUT_MS }).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_RECEIVED', 'WORKFLOW_COMPLETED']);
      expect(await page.locator('li[data-event-type="SIGNAL_RECEIVED"]').textContent()).toContain(`“${SIGNAL}”, approved`);
      await expect.poll(() => stateStatus(page)).toBe('COMPLETED');
      expect(await page.getByTestId('follow-status').textContent()).toBe('Ended: COMPLETED.');
      expect(await page.getByTestId('timeline-now').count()).toBe(0);
      expect(requested.slice(readsBefore).filter((path) => path.endsWith('/events'))).toEqual([]);
      const steps = await page.locator('table.steps-table tbody tr').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-step'), row.querySelector('[data-testid="status"]')?.textContent, row.lastElementChild?.textContent]));
      expect(steps).toEqual([['check', 'DONE', 'true'], ['review', 'DONE', 'true']]);
      expect(await fitsWidth(page)).toBe(true);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'workflow.png'), fullPage: true });

      // A phone: both pages in one column, nothing wider than the screen.
      await page.setViewportSize(PHONE);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.goto(`${base}/console#/audit`);
      await expect.poll(() => shownSeqs(page)).toHaveLength(25);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('grows the newest audit page by the records the stream pushes, and polls when the stream is refused', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    try {
      await page.goto(`${base}/console#/audit?type=POLICY_EVALUATED&size=10`);
      const before = await auditSeqs('/api/v1/audit/type/POLICY_EVALUATED?limit=10');
      await expect.poll(() => shownSeqs(page), { timeout: STEP_TIMEOUT_MS }).toEqual(before);
      await expect.poll(() => requested.some((path) => path === '/api/v1/audit/stream'), { timeout: STEP_TIMEOUT_MS }).toBe(true);
      const listReads = requested.filter((path) => path.startsWith('/api/v1/audit/type/')).length;

      // A deploy (another type, not shown) and two evaluations: the evaluations come to the top.
      const redeployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SOURCE.replace('at least 18', 'at least 17'), locale: 'en-US' });
      expect(redeployed.status, JSON.stringify(redeployed.body)).toBe(201);
      for (const age of [40, 41]) expect((await call(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: MODULE, policyFunction: RULE, context: { age } })).status).toBe(200);
      const after = await auditSeqs('/api/v1/audit/type/POLICY_EVALUATED?limit=10');
      expect(after.slice(2)).toEqual(before.slice(0, 8));
      await expect.poll(() => shownSeqs(page), { timeout: STEP_TIMEOUT_MS }).toEqual(after);
      // Pushed, not polled: the list was not read again.
      expect(requested.filter((path) => path.startsWith('/api/v1/audit/type/')).length).toBe(listReads);
      expect(await page.getByTestId('audit-page-status').textContent()).toBe(`Seq ${after[0]} to ${after.at(-1)} · 10 shown`);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }

    // A proxy in the way that knows no stream: the page polls the chain instead.
    const refused = await openConsole(DESKTOP, 'ADMIN');
    try {
      await refused.page.route('**/api/v1/audit/stream*', (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ result: null, error: 'no route', executionTimeMs: 0, code: 'ERR_ROUTE_NOT_FOUND' }) }),
      );
      await refused.page.goto(`${base}/console#/audit?size=10`);
      const before = await auditSeqs('/api/v1/audit?limit=10');
      await expect.poll(() => shownSeqs(refused.page), { timeout: STEP_TIMEOUT_MS }).toEqual(before);
      expect((await call(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: MODULE, policyFunction: RULE, context: { age: 50 } })).status).toBe(200);
      const after = await auditSeqs('/api/v1/audit?limit=10');
      await expect.poll(() => shownSeqs(refused.page), { timeout: STEP_TIMEOUT_MS }).toEqual(after);
    } finally {
      await refused.context.close();
    }
  }, 180_000);

  it('follows a workflow by asking for its events when the stream is refused', async () => {
    const started = await call<{ workflowId: string }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: MODULE, workflow: WORKFLOW, context: { age: 30 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const id = started.body.workflowId;
    const { context, page } = await openConsole(DESKTOP, 'MEMBER');
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    try {
      // A proxy in the way that knows no stream.
      await page.route('**/events/stream*', (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ result: null, error: 'no route', executionTimeMs: 0, code: 'ERR_ROUTE_NOT_FOUND' }) }),
      );
      await page.goto(`${base}/console#/workflows/${encodeURIComponent(id)}`);
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('WAITING');
      await expect.poll(() => requested.some((path) => path.endsWith('/events/stream')), { timeout: STEP_TIMEOUT_MS }).toBe(true);
      const signalled = await call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${id}/signals`, { signal: SIGNAL, approved: true });
      expect(signalled.status, JSON.stringify(signalled.body)).toBe(200);
      await expect.poll(() => timelineTypes(page), { timeout: STEP_TIMEOUT_MS }).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_RECEIVED', 'WORKFLOW_COMPLETED']);
      // Found by asking for the events after the last one shown, once the stream was refused.
      const refusedAt = requested.findIndex((path) => path.endsWith('/events/stream'));
      expect(requested.slice(refusedAt).filter((path) => path.endsWith('/events')).length).toBeGreaterThan(0);
      expect(await page.getByTestId('follow-status').textContent()).toBe('Ended: COMPLETED.');
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('lets a MEMBER open a workflow by id and tells it the audit chain is for administrators', async () => {
    const started = await call<{ workflowId: string }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: MODULE, workflow: WORKFLOW, context: { age: 12 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const { context, page } = await openConsole(PHONE, 'MEMBER');
    try {
      await page.getByRole('link', { name: 'Workflows' }).click();
      await expect.poll(() => heading(page)).toBe('Workflows');
      expect(await lowContrastText(page)).toEqual([]);
      await page.getByLabel('Workflow id').fill(started.body.workflowId);
      await page.getByLabel('Workflow id').press('Enter');
      await expect.poll(() => heading(page)).toBe(`Workflow ${WORKFLOW}`);
      // Under 18: the first step answers false and the workflow completes with false at once.
      await expect.poll(() => stateStatus(page), { timeout: STEP_TIMEOUT_MS }).toBe('COMPLETED');
      expect(await page.locator('li[data-event-type="WORKFLOW_COMPLETED"]').textContent()).toContain('final result false');
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);

      await page.getByRole('link', { name: 'Audit chain' }).click();
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (MEMBER) may not see this: the audit chain is for administrators');
      expect(await page.locator('table.audit-table').count()).toBe(0);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
