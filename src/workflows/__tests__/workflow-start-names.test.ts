// A workflow's module and name go into its events and audit records: a start whose names break the
// name rule (1 to 256 characters, well formed) is refused with a 400 before anything is stored.
import { describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { WorkflowError } from '../workflow-errors.js';
import { createWorkflowService } from '../workflow-service.js';
import type { WorkflowRepository } from '../workflow-store.js';

const DEFINITION: WorkflowSignature = { name: 'flow', params: [], steps: [] };

describe('starting a workflow', () => {
  const created: unknown[] = [];
  const service = createWorkflowService({
    workflows: {
      create: async (...args: unknown[]) => {
        created.push(args);
        return true;
      },
      append: async () => undefined,
      usage: async () => ({ unfinished: 0, storedBytes: 0 }),
    } as unknown as WorkflowRepository,
    quotas: { contextMaxBytes: 1024, maxUnfinished: 10, maxStoredBytes: 1024 * 1024 },
    versions: { activeVersion: async () => 1 },
    definitions: { of: async () => [DEFINITION], find: async () => DEFINITION },
    enqueueRun: async () => undefined,
  });
  const caller = { tenantId: 'acme', actorId: 'alice' };

  it.each([
    ['an empty module name', { policyModule: '', workflow: 'flow' }, 'policyModule'],
    ['a module name of 257 characters', { policyModule: 'm'.repeat(257), workflow: 'flow' }, 'policyModule'],
    ['a module name with an unpaired surrogate', { policyModule: 'm\uD800', workflow: 'flow' }, 'policyModule'],
    ['a workflow name with an unpaired surrogate', { policyModule: 'm', workflow: '\uDC00flow' }, 'workflow'],
  ])('refuses %s with 400 ERR_WORKFLOW_REQUEST_INVALID', async (_label, names, field) => {
    const refusal = await service.start(caller, { ...names, context: {} }).then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(WorkflowError);
    expect(refusal).toMatchObject({ status: 400, code: 'ERR_WORKFLOW_REQUEST_INVALID' });
    expect((refusal as Error).message).toContain(`\`${field}\``);
    expect(created).toEqual([]);
  });
});
