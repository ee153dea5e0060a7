import { describe, expect, it } from 'vitest';
import { WORKFLOW_EXAMPLE_DE, WORKFLOW_EXAMPLE_EN, WORKFLOW_EXAMPLE_ZH } from '../parser/__tests__/fixtures/workflow-example.js';
import { compile } from '../index.js';

describe('compiled workflows', () => {
  it('describe each workflow by its parameters and steps, the same in every locale', () => {
    const programs = [
      compile(WORKFLOW_EXAMPLE_EN, 'en-US'),
      compile(WORKFLOW_EXAMPLE_DE, 'de-DE'),
      compile(WORKFLOW_EXAMPLE_ZH, 'zh-CN'),
    ].map((result) => {
      expect(result.diagnostics).toEqual([]);
      return result.program!;
    });
    expect(programs[0]!.workflows).toEqual([
      {
        name: 'originateLoan',
        params: [{ name: 'applicant', type: 'Applicant' }],
        steps: [
          { name: 'identity', kind: 'rule', rule: 'identityVerified', args: ['applicant'], compensate: null },
          { name: 'credit', kind: 'rule', rule: 'creditAcceptable', args: ['applicant'], compensate: { rule: 'releaseCreditHold', args: ['applicant'] } },
          { name: 'review', kind: 'await', signal: 'underwriter-approval', withinMinutes: 48 * 60 },
          { name: 'pricing', kind: 'await', signal: 'pricing', withinMinutes: null },
        ],
      },
    ]);
    expect(programs[1]!.workflows).toEqual(programs[0]!.workflows);
    expect(programs[2]!.workflows).toEqual(programs[0]!.workflows);
  });

  it('converts every unit of a time limit to minutes and accepts the singular', () => {
    const source = (limit: string) => `Module m.\n\nWorkflow w:\n  Step s: Await "go" within ${limit}.\n`;
    const minutes = (limit: string) => {
      const step = compile(source(limit), 'en-US').program!.workflows[0]!.steps[0]!;
      return step.kind === 'await' ? step.withinMinutes : undefined;
    };
    expect([minutes('1 minute'), minutes('90 minutes'), minutes('1 hour'), minutes('2 DAYS')]).toEqual([1, 90, 60, 2880]);
  });

  it('leaves programs without workflows with an empty list', () => {
    expect(compile('Module m.\n\nRule r produce Int:\n  Return 1.\n', 'en-US').program!.workflows).toEqual([]);
  });
});
