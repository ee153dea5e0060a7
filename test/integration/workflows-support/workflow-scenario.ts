// Workflows end to end, run on each store: declared in a deployed module, started over HTTP, run by
// a real `workflow-run` worker step by step through the evaluation path, signalled, timed out,
// compensated and cancelled; the event history as the interface serves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { startWorkflowsHarness, type WorkflowsHarness } from './workflows-harness.js';

const MODULE = `Module acme.origination.

Define Applicant has age as Int, score as Int.

Rule identityVerified given applicant as Applicant, produce Bool:
  Return applicant.age is at least 18.

Rule creditAcceptable given applicant as Applicant, produce Bool:
  If applicant.score is less than 0:
    Fail with "credit bureau unavailable".
  Return applicant.score is at least 600.

Rule releaseCreditHold given applicant as Applicant, produce Bool:
  Return true.

Rule priceAcceptable given applicant as Applicant, amount as Int, produce Bool:
  If amount is greater than 1000000:
    Fail with "amount out of range".
  Return amount is at most applicant.score times 100.

Workflow originateLoan given applicant as Applicant, amount as Int:
  Step identity: identityVerified(applicant).
  Step credit: creditAcceptable(applicant), compensate with releaseCreditHold(applicant).
  Step review: Await "underwriter-approval" within 2 minutes.
  Step pricing: priceAcceptable(applicant, amount).
`;

interface Event {
  sequence: number;
  workflowId: string;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

type State = Record<string, unknown> & { status: string; currentStep: string | null; finalResult: boolean | null };

const applicant = (age: number, score: number) => ({ age, score });

export function workflowScenario(name: string, openStore?: () => Promise<Store>): void {
  describe(name, () => {
    let h: WorkflowsHarness;
    const member = <T>(method: string, path: string, body?: unknown) => h.call<T>(h.policies.tenants.a, 'MEMBER', method, path, body);
    const start = async (context: Record<string, unknown>) => {
      const answer = await member<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.origination', workflow: 'originateLoan', context });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.workflowId;
    };
    const events = async (id: string, fromSeq?: number) =>
      (await member<Event[]>('GET', `/api/v1/workflows/${id}/events${fromSeq === undefined ? '' : `?fromSeq=${fromSeq}`}`)).body;
    const types = async (id: string) => (await events(id)).map((e) => e.eventType);
    const settled = (id: string) => h.until(h.policies.tenants.a, id, (s) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(s.status as string)) as Promise<State>;
    const waiting = (id: string) => h.until(h.policies.tenants.a, id, (s) => s.status === 'WAITING') as Promise<State>;

    beforeAll(async () => {
      h = await startWorkflowsHarness({ minuteMs: 100, ...(openStore ? { openStore } : {}) });
      await h.deploy(h.policies.tenants.a, MODULE);
    }, 60_000);

    afterAll(async () => {
      await h?.close();
    });

    it('runs the steps, waits for the signal, and completes; the history is ordered and gapless', async () => {
      const id = await start({ applicant: applicant(30, 700), amount: 50_000 });
      const paused = await waiting(id);
      expect(paused).toMatchObject({ status: 'WAITING', currentStep: 'review', version: 1 });
      const signalled = await member<State>('POST', `/api/v1/workflows/${id}/signals`, { signal: 'underwriter-approval', approved: true });
      expect(signalled.status).toBe(200);
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'COMPLETED', finalResult: true, currentStep: null });
      const history = await events(id);
      expect(history.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_RECEIVED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED',
      ]);
      expect(history.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(history.every((e) => e.workflowId === id)).toBe(true);
      expect(history[0]!.payload).toEqual({});
      expect(history[1]!.payload).toMatchObject({ policyModule: 'acme.origination', policyFunction: 'identityVerified', result: true, step: 'identity' });
      expect(Number.isInteger(history[1]!.payload.executionTimeMs)).toBe(true);
      expect(history[6]!.payload).toEqual({ finalResult: true });
      expect((await events(id, 5)).map((e) => e.sequence)).toEqual([5, 6, 7]);
      expect(await events(id, 8)).toEqual([]);
      // Every step went through the evaluation path: audited with the workflow as actor.
      const audited = await h.policies.auditOfType(h.policies.tenants.a, 'POLICY_EVALUATED');
      expect(audited.filter((r) => r.actorId === `workflow:${id}`).map((r) => r.policyFunction).sort()).toEqual(['creditAcceptable', 'identityVerified', 'priceAcceptable']);
    });

    it('completes with false at once when a step answers false, and when a signal is refused or times out', async () => {
      const refusedByRule = await start({ applicant: applicant(16, 700), amount: 1 });
      expect(await settled(refusedByRule)).toMatchObject({ status: 'COMPLETED', finalResult: false });
      expect(await types(refusedByRule)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED']);

      const refusedBySignal = await start({ applicant: applicant(30, 700), amount: 1 });
      await waiting(refusedBySignal);
      await member('POST', `/api/v1/workflows/${refusedBySignal}/signals`, { signal: 'underwriter-approval', approved: false });
      expect(await settled(refusedBySignal)).toMatchObject({ status: 'COMPLETED', finalResult: false });

      // `within 2 minutes` lasts 200 ms in this harness.
      const timedOut = await start({ applicant: applicant(30, 700), amount: 1 });
      expect(await settled(timedOut)).toMatchObject({ status: 'COMPLETED', finalResult: false });
      const history = await events(timedOut);
      expect(history.map((e) => e.eventType)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_TIMED_OUT', 'WORKFLOW_COMPLETED']);
      expect(history[3]!.payload).toMatchObject({ step: 'review', signal: 'underwriter-approval' });
      const late = await member<{ code: string }>('POST', `/api/v1/workflows/${timedOut}/signals`, { signal: 'underwriter-approval', approved: true });
      expect(late.status).toBe(409);
    });

    it('compensates the completed steps in reverse order when a step fails, and when cancelled', async () => {
      const failing = await start({ applicant: applicant(30, 700), amount: 2_000_000 });
      await waiting(failing);
      await member('POST', `/api/v1/workflows/${failing}/signals`, { signal: 'underwriter-approval', approved: true });
      expect(await settled(failing)).toMatchObject({ status: 'FAILED' });
      const history = await events(failing);
      expect(history.slice(-3).map((e) => e.eventType)).toEqual(['COMPENSATION_STARTED', 'COMPENSATION_COMPLETED', 'WORKFLOW_FAILED']);
      expect(history.at(-3)!.payload).toMatchObject({ failedStep: 'pricing' });
      expect(String(history.at(-3)!.payload.error)).toContain('amount out of range');
      expect(history.at(-2)!.payload).toMatchObject({ step: 'credit', policyFunction: 'releaseCreditHold', result: true });

      const cancelled = await start({ applicant: applicant(30, 700), amount: 1 });
      await waiting(cancelled);
      expect((await member('POST', `/api/v1/workflows/${cancelled}/cancel`)).status).toBe(200);
      expect(await settled(cancelled)).toMatchObject({ status: 'CANCELLED' });
      expect((await types(cancelled)).slice(-4)).toEqual(['WORKFLOW_CANCEL_REQUESTED', 'COMPENSATION_STARTED', 'COMPENSATION_COMPLETED', 'WORKFLOW_CANCELLED']);
      expect((await member('POST', `/api/v1/workflows/${cancelled}/cancel`)).status).toBe(409);
    });

    it('marks a workflow finished once its log ends, so that only running and waiting ones are listed as unfinished', async () => {
      const unfinished = async () => (await h.store.workflows.listUnfinished(null, 10_000)).map((w) => w.workflowId);
      // The mark follows the terminal event: a reader may see the event first.
      const marked = async (id: string) => {
        for (let attempt = 0; attempt < 400 && (await unfinished()).includes(id); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
        return !(await unfinished()).includes(id);
      };
      const completed = await start({ applicant: applicant(16, 700), amount: 1 });
      await settled(completed);
      const paused = await start({ applicant: applicant(30, 700), amount: 1 });
      await waiting(paused);
      expect(await marked(completed)).toBe(true);
      expect(await unfinished()).toContain(paused);
      await member('POST', `/api/v1/workflows/${paused}/cancel`);
      expect(await settled(paused)).toMatchObject({ status: 'CANCELLED' });
      expect(await marked(paused)).toBe(true);
    });

    it('answers the interface’s errors: 400 fromSeq, 403 without MEMBER or for another tenant, 404 unknown', async () => {
      const id = await start({ applicant: applicant(16, 1), amount: 1 });
      await settled(id);
      for (const bad of ['-1', 'abc', '1.5']) expect((await member('GET', `/api/v1/workflows/${id}/events?fromSeq=${bad}`)).status, bad).toBe(400);
      expect((await h.call(h.policies.tenants.a, 'VIEWER', 'GET', `/api/v1/workflows/${id}/events`)).status).toBe(403);
      const other = await h.call<{ code: string }>(h.policies.tenants.b, 'MEMBER', 'GET', `/api/v1/workflows/${id}/events`);
      expect(other.status).toBe(403);
      expect(other.body.code).toBe('ERR_WORKFLOW_OTHER_TENANT');
      expect((await member('GET', '/api/v1/workflows/no-such-workflow/events')).status).toBe(404);
      expect((await h.call(h.policies.tenants.b, 'MEMBER', 'GET', `/api/v1/workflows/${id}`)).status).toBe(403);

      const startWith = (body: unknown) => member<{ code: string }>('POST', '/api/v1/workflows', body);
      expect((await startWith({ policyModule: 'acme.origination', workflow: 'nope', context: {} })).status).toBe(404);
      expect((await startWith({ policyModule: 'acme.nothing', workflow: 'originateLoan', context: {} })).status).toBe(404);
      expect((await startWith({ policyModule: 'acme.origination', workflow: 'originateLoan', context: { applicant: applicant(1, 1) } })).status).toBe(400);
      expect((await startWith({ policyModule: 'acme.origination', workflow: 'originateLoan', context: { amount: 1, applicant: applicant(1, 1), extra: 1 } })).status).toBe(400);
      const missingWorkflow = await member<{ error: string; code: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.origination', context: {} });
      expect([missingWorkflow.status, missingWorkflow.body.code, missingWorkflow.body.error]).toEqual([400, 'ERR_WORKFLOW_REQUEST_INVALID', '`workflow` is required']);
      const notObject = await member<{ error: string }>('POST', '/api/v1/workflows', [1]);
      expect(notObject.body.error).toBe('the request body must be a JSON object with `policyModule`, `workflow`, `version` and `context` (got an array)');
      expect((await h.call(h.policies.tenants.a, 'VIEWER', 'POST', '/api/v1/workflows', { policyModule: 'acme.origination', workflow: 'originateLoan', context: {} })).status).toBe(403);

      const pending = await start({ applicant: applicant(30, 700), amount: 1 });
      await waiting(pending);
      expect((await member('POST', `/api/v1/workflows/${pending}/signals`, { signal: 'other', approved: true })).status).toBe(409);
      const unanswered = await member<{ error: string }>('POST', `/api/v1/workflows/${pending}/signals`, { signal: 'underwriter-approval' });
      expect([unanswered.status, unanswered.body.error]).toEqual([400, '`approved` is required']);
      const notBoolean = await member<{ error: string }>('POST', `/api/v1/workflows/${pending}/signals`, { signal: 'underwriter-approval', approved: 'yes' });
      expect([notBoolean.status, notBoolean.body.error]).toEqual([400, '`approved` must be true or false (got a string of 3 characters)']);
      await member('POST', `/api/v1/workflows/${pending}/cancel`);
      await settled(pending);
    });
  });
}
