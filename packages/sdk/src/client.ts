import { Analyses } from './resources/analyses.js';
import { Analysts } from './resources/analysts.js';
import { Analytics } from './resources/analytics.js';
import { ApiKeys } from './resources/api-keys.js';
import { Assignments } from './resources/assignments.js';
import { AuditEvents } from './resources/audit-events.js';
import { Dowsing } from './resources/dowsing.js';
import { History } from './resources/history.js';
import { JudgingTasks } from './resources/judging-tasks.js';
import { Profiles } from './resources/profile.js';
import { Reports } from './resources/reports.js';
import { ScimTokens } from './resources/scim-tokens.js';
import { Sessions } from './resources/sessions.js';
import { Organizations, SsoConnections } from './resources/sso-connections.js';
import { Targets } from './resources/targets.js';
import { Webhooks } from './resources/webhooks.js';
import { type Credentials, sleep, Transport } from './transport.js';
import { waitForWork, type WaitOptions, type WorkRef } from './wait.js';

/** The SDK's version, sent in its User-Agent. */
export const SDK_VERSION = '2.0.0';

export type ClientOptions = { baseUrl: string } & Credentials & {
    /** Retries after a 408, 429, 5xx or network failure (default 3). */
    maxRetries?: number;
    /** Give up on one attempt after this long (default 60 s). */
    timeoutMs?: number;
    /** Another fetch (a proxy agent, a test double); the platform's by default. */
    fetch?: typeof fetch;
    /** Added to the User-Agent (outside browsers), e.g. `my-app/1.4`. */
    appInfo?: string;
  };

/**
 * A client of the Session and Analysis Service, version 2 of the library: it
 * speaks API v2 wherever v2 has a path, v1 otherwise.
 *
 * ```ts
 * const client = new Client({ baseUrl: 'https://api.example.com', apiKey: process.env.SAS_API_KEY! });
 * const session = await client.sessions.create({ type: 'remote_viewing', target: 'Envelope 4711' });
 * const done = await client.waitFor(session);
 * for await (const s of client.sessions.list({ status: 'completed' })) console.log(s.session_id);
 * ```
 */
export class Client {
  readonly sessions: Sessions;
  readonly analyses: Analyses;
  readonly dowsing: Dowsing;
  readonly history: History;
  readonly webhooks: Webhooks;
  readonly apiKeys: ApiKeys;
  readonly analytics: Analytics;
  readonly reports: Reports;
  /** The person signed in (tokens of the authorization code flow). */
  readonly profile: Profiles;
  readonly analysts: Analysts;
  readonly assignments: Assignments;
  readonly judgingTasks: JudgingTasks;
  readonly targets: Targets;
  readonly organizations: Organizations;
  readonly ssoConnections: SsoConnections;
  readonly scimTokens: ScimTokens;
  /** The audit log (admins): `list` in pages, `export` streamed. */
  readonly auditEvents: AuditEvents;
  private readonly transport: Transport;
  private readonly credentials: Credentials;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.credentials = credentialsOf(options);
    const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
    this.transport = new Transport({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      credentials: this.credentials,
      maxRetries: options.maxRetries ?? 3,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      userAgent: inBrowser
        ? undefined
        : `sas-sdk-js/${SDK_VERSION}${options.appInfo ? ` ${options.appInfo}` : ''}`,
      sleep,
    });
    this.sessions = new Sessions(this.transport);
    this.analyses = new Analyses(this.transport);
    this.dowsing = new Dowsing(this.transport);
    this.history = new History(this.transport);
    this.webhooks = new Webhooks(this.transport);
    this.apiKeys = new ApiKeys(this.transport);
    this.analytics = new Analytics(this.transport);
    this.reports = new Reports(this.transport);
    this.profile = new Profiles(this.transport);
    this.analysts = new Analysts(this.transport);
    this.assignments = new Assignments(this.transport);
    this.judgingTasks = new JudgingTasks(this.transport);
    this.targets = new Targets(this.transport);
    this.organizations = new Organizations(this.transport);
    this.ssoConnections = new SsoConnections(this.transport);
    this.scimTokens = new ScimTokens(this.transport);
    this.auditEvents = new AuditEvents(this.transport);
  }

  /**
   * Waits until a session, analysis or dowsing query completes or fails, and
   * answers it as `get` would: over the live WebSocket where the runtime has
   * one, by polling otherwise.
   */
  waitFor(work: WorkRef, options?: WaitOptions) {
    return waitForWork(this.transport, this.credentials, work, options);
  }
}

function credentialsOf(options: ClientOptions): Credentials {
  if ('apiKey' in options && options.apiKey) return { apiKey: options.apiKey };
  if ('accessToken' in options && options.accessToken) {
    return { accessToken: options.accessToken };
  }
  if ('clientId' in options && options.clientId && options.clientSecret) {
    return {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      ...(options.scope ? { scope: options.scope } : {}),
    };
  }
  throw new TypeError('give apiKey, or clientId and clientSecret, or accessToken');
}
