import type * as Api from '../generated/types.gen.js';
import type { ResultOf } from '../api-types.js';
import type { RequestOptions } from '../transport.js';
import { Resource } from './resource.js';

export type Dashboard = ResultOf<Api.AnalyticsV2ControllerDashboardOfV2Responses>;

/** Analytics (version 2). */
export class Analytics extends Resource {
  /** `GET /v2/analytics/dashboard`: usage, work by status, success rates with intervals, webhook health. */
  dashboard(options?: RequestOptions): Promise<Dashboard> {
    return this.call({ method: 'GET', path: '/v2/analytics/dashboard' }, options);
  }
}
