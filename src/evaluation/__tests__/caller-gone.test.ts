import { describe, expect, it } from 'vitest';
import { createCallerGone } from '../caller-gone.js';

describe('createCallerGone', () => {
  it('calls each listener once with the reason set, and at once for listeners that come late', () => {
    const gone = createCallerGone();
    const heard: unknown[] = [];
    const unregister = gone.onGone(() => heard.push(['first', gone.reason]));
    gone.onGone(() => heard.push(['second', gone.reason]))();
    expect(gone.reason).toBeUndefined();
    gone.markGone('hung up');
    gone.markGone('again');
    unregister();
    gone.onGone(() => heard.push(['late', gone.reason]));
    expect(heard).toEqual([
      ['first', 'hung up'],
      ['late', 'hung up'],
    ]);
  });
});
