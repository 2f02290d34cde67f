import type * as Api from '../generated/types.gen.js';
import type { BodyOf, QueryOf, ResultOf } from '../api-types.js';
import { sleep, Transport } from '../transport.js';

/** How a 1.x client was made: an API key (1.x knew no OAuth) and the service's address. */
export interface SasClientOptions {
  apiKey: string;
  /** Default `https://api.example.com`, as 1.x had it. */
  baseUrl?: string;
  maxRetries?: number;
}

/**
 * The client of library version 1.x: every call on API version 1, lists as
 * single pages (`limit`, `offset`, `has_more`). Deprecated: use `Client`
 * from `@sas/sdk`; `sas migrate check` finds the calls to change.
 *
 * @deprecated since 2.0
 */
export class SasClient {
  readonly sessions: {
    create(
      body: BodyOf<Api.SessionsV1ControllerCreateV1Data>,
    ): Promise<ResultOf<Api.SessionsV1ControllerCreateV1Responses>>;
    retrieve(id: string): Promise<ResultOf<Api.SessionsV1ControllerStatusV1Responses>>;
    getResults(id: string): Promise<ResultOf<Api.SessionsV1ControllerResultsV1Responses>>;
    list(
      query?: QueryOf<Api.SessionsV1ControllerListV1Data>,
    ): Promise<ResultOf<Api.SessionsV1ControllerListV1Responses>>;
    cancel(id: string): Promise<ResultOf<Api.SessionsV1ControllerCancelV1Responses>>;
  };
  readonly analysis: {
    submit(
      body: BodyOf<Api.AnalysesV1ControllerSubmitUnderOlderNameV1Data>,
    ): Promise<ResultOf<Api.AnalysesV1ControllerSubmitUnderOlderNameV1Responses>>;
    retrieve(id: string): Promise<ResultOf<Api.AnalysesV1ControllerStatusV1Responses>>;
    getResults(id: string): Promise<ResultOf<Api.AnalysesV1ControllerResultsV1Responses>>;
  };
  readonly dowsing: {
    query(
      body: BodyOf<Api.DowsingV1ControllerQueryV1Data>,
    ): Promise<ResultOf<Api.DowsingV1ControllerQueryV1Responses>>;
    retrieve(id: string): Promise<ResultOf<Api.DowsingV1ControllerGetV1Responses>>;
  };
  readonly history: {
    search(
      query?: QueryOf<Api.HistoryV1ControllerSearchCasesV1Data>,
    ): Promise<ResultOf<Api.HistoryV1ControllerSearchCasesV1Responses>>;
  };

  constructor(options: SasClientOptions) {
    const transport = new Transport({
      baseUrl: (options.baseUrl ?? 'https://api.example.com').replace(/\/+$/, ''),
      credentials: { apiKey: options.apiKey },
      maxRetries: options.maxRetries ?? 3,
      timeoutMs: 60_000,
      fetch: globalThis.fetch.bind(globalThis),
      userAgent: undefined,
      sleep,
    });
    const at = (id: string) => encodeURIComponent(id);
    this.sessions = {
      create: (body) => transport.request({ method: 'POST', path: '/v1/sessions', body }),
      retrieve: (id) => transport.request({ method: 'GET', path: `/v1/sessions/${at(id)}` }),
      getResults: (id) =>
        transport.request({ method: 'GET', path: `/v1/sessions/${at(id)}/results` }),
      list: (query) => transport.request({ method: 'GET', path: '/v1/sessions', query }),
      cancel: (id) => transport.request({ method: 'POST', path: `/v1/sessions/${at(id)}/cancel` }),
    };
    this.analysis = {
      submit: (body) => transport.request({ method: 'POST', path: '/v1/analysis/submit', body }),
      retrieve: (id) => transport.request({ method: 'GET', path: `/v1/analysis/${at(id)}` }),
      getResults: (id) =>
        transport.request({ method: 'GET', path: `/v1/analysis/${at(id)}/results` }),
    };
    this.dowsing = {
      query: (body) => transport.request({ method: 'POST', path: '/v1/dowsing/query', body }),
      retrieve: (id) => transport.request({ method: 'GET', path: `/v1/dowsing/queries/${at(id)}` }),
    };
    this.history = {
      search: (query) => transport.request({ method: 'GET', path: '/v1/history/search', query }),
    };
  }
}
