import type { IncomingMessage, Server } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import proxyAddr from 'proxy-addr';
import { AppError, type Principal } from '#common';

/** Where the sandbox lives on the live origin, unless SANDBOX_PUBLIC_URL gives it one of its own. */
export const SANDBOX_PATH = '/sandbox';

/** The two base URLs the API is served at. */
export interface ServedBases {
  publicUrl: string;
  sandboxUrl: string;
}

/** What the sandbox marks on every request, before any route or socket sees it. */
export interface SandboxMark {
  /** Asked at the sandbox base (its path or its host). */
  sandbox?: boolean;
  /** The base URL the request was asked on, for the absolute links the answer carries. */
  linkBase?: string;
}

type MarkedRequest = IncomingMessage & SandboxMark;
type UpgradeDecidingServer = Server & {
  shouldUpgradeCallback: (request: IncomingMessage) => boolean;
};

/**
 * The sandbox is the same deployment seen at another base URL: a request to
 * `{PUBLIC_URL}/sandbox/…` is served as `/…` would be, or, with
 * SANDBOX_PUBLIC_URL, every request whose host is the sandbox's. Telling
 * them apart happens once, on the HTTP server, before Express or the
 * WebSocket upgrade sees the request, so every route and socket serves both
 * bases without knowing; only live-mode credentials and the links answers
 * carry differ (`refuseLiveCredential`, `linkBase`).
 */
export class SandboxRouting {
  /** The sandbox's own hostname; null when it shares the live origin and is told apart by path. */
  private readonly hostname: string | null;
  private readonly trusted: (address: string, hop: number) => boolean;

  constructor(
    private readonly publicUrl: string,
    private readonly sandboxUrl: string,
    trustedProxies: string[],
  ) {
    const own = new URL(sandboxUrl).hostname;
    this.hostname = own === new URL(publicUrl).hostname ? null : own.toLowerCase();
    this.trusted = proxyAddr.compile(trustedProxies);
  }

  /**
   * Marks every request the server takes, plain or WebSocket upgrade, before
   * anything else runs. Attach it after the WebSockets: it wraps their
   * upgrade decision, which Node asks before any listener hears of the request.
   */
  attach(server: Server): void {
    server.prependListener('request', (request: IncomingMessage) => this.enter(request));
    const upgrading = server as UpgradeDecidingServer;
    const decide = upgrading.shouldUpgradeCallback.bind(server);
    upgrading.shouldUpgradeCallback = (request) => {
      this.enter(request);
      return decide(request);
    };
  }

  /** Marks a request and, on the live origin, gives it the path it is served by. Idempotent. */
  enter(request: MarkedRequest): void {
    if (request.linkBase !== undefined) return;
    const sandbox =
      this.hostname === null ? this.stripPrefix(request) : this.hostOf(request) === this.hostname;
    request.sandbox = sandbox;
    request.linkBase = sandbox ? this.sandboxUrl : this.publicUrl;
  }

  private stripPrefix(request: MarkedRequest): boolean {
    const url = request.url ?? '/';
    if (!url.startsWith(SANDBOX_PATH)) return false;
    const rest = url.slice(SANDBOX_PATH.length);
    if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return false;
    request.url = rest.startsWith('/') ? rest : `/${rest}`;
    return true;
  }

  /** The request's hostname as Express gives it: X-Forwarded-Host only from a trusted proxy. */
  private hostOf(request: IncomingMessage): string {
    const forwarded = request.headers['x-forwarded-host'];
    const fromProxy =
      typeof forwarded === 'string' && this.trusted(request.socket.remoteAddress ?? '', 0);
    const host = (fromProxy ? forwarded.split(',')[0]! : (request.headers.host ?? '')).trim();
    // `[::1]:3000` keeps its brackets; a port goes.
    const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
    return (end > 0 ? host.slice(0, end) : host).toLowerCase();
  }
}

/** The base URL a request was asked on: its links point there. */
export function linkBaseOf(request: SandboxMark, publicUrl: string): string {
  return request.linkBase ?? publicUrl;
}

/** A route's parameter: the base URL its request was asked on, for the links its answer carries. */
export const LinkBase = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const { linkBase } = context.switchToHttp().getRequest<SandboxMark>();
  // Every request the API's server takes is marked (SandboxRouting.attach) before routing.
  if (linkBase === undefined) throw new Error('The request was not marked by SandboxRouting');
  return linkBase;
});

/** The sandbox serves test mode only; a live credential is told where live is. */
export function refuseLiveCredential(
  request: SandboxMark,
  principal: Principal,
  publicUrl: string,
): void {
  if (request.sandbox !== true || principal.mode === 'test') return;
  throw new AppError(
    'FORBIDDEN',
    `This is the sandbox, which takes test-mode credentials only: use the live base URL ${publicUrl}/v1 (or /v2) with a live-mode credential`,
    {
      field: 'Authorization',
      issue: 'a live-mode credential at the sandbox base URL',
    },
  );
}
