import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS as RECORDED } from '../../../../../libs/events/src/audit/audit-actions.js';
import { AUDIT_ACTIONS } from './audit-actions';

describe("the dashboard's audit actions", () => {
  it('are the ones the service records, in its order (a copy: the dashboard bundles no server code)', () => {
    expect(AUDIT_ACTIONS).toEqual(RECORDED);
  });
});
