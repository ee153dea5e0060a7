// The OpenAPI document's answer of POST /api/v1/workflows is what starting a workflow answers: the
// new workflow's id (201 `{workflowId}`), not its state, which GET /api/v1/workflows/{id} replays.
import { describe, expect, it } from 'vitest';
import { createWorkflowService, type WorkflowRepository } from '../../workflows/index.js';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { WORKFLOW_ROUTES } from '../routes/workflows.js';

describe('the documented answer of POST /api/v1/workflows', () => {
  it('fits what the workflow service answers', async () => {
    const service = createWorkflowService({
      workflows: { create: async () => true, append: async () => 1, saveSummary: async () => true, usage: async () => ({ unfinished: 0, storedBytes: 0 }) } as unknown as WorkflowRepository,
      quotas: { contextMaxBytes: 1024, maxUnfinished: 10, maxStoredBytes: 1024 * 1024 },
      versions: { activeVersion: async () => 1 },
      definitions: { of: async () => [], find: async () => ({ name: 'onboard', params: [{ name: 'age', type: 'Int' }], steps: [] }) } as never,
      enqueueRun: async () => undefined,
    });
    const started = await service.start({ tenantId: 'acme', actorId: 'alice' }, { policyModule: 'acme.onboarding', workflow: 'onboard', context: { age: 30 } });

    const operation = WORKFLOW_ROUTES.find((op) => op.method === 'post' && op.path === '/api/v1/workflows')!;
    expect(operation.doc!.success.status).toBe(201);
    expect(operation.doc!.success.schema!.parse(started)).toEqual(started);

    const document = buildOpenApiDocument(WORKFLOW_ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>> };
    expect(document.paths['/api/v1/workflows']!.post!.responses['201']!.content['application/json']!.schema).toMatchObject({ required: ['workflowId'], properties: { workflowId: { type: 'string' } } });
  });
});
