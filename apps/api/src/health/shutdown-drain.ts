import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppSettings } from '#config';

/** The longest drain, whatever SHUTDOWN_GRACE_MS allows: load balancers notice within seconds. */
const MAX_DRAIN_MS = 5_000;

/** How long an instance keeps serving after SIGTERM with /health/ready failing: half the grace, at most 5 s. */
export function drainMs(shutdownGraceMs: number): number {
  return Math.min(MAX_DRAIN_MS, Math.floor(shutdownGraceMs / 2));
}

/**
 * Leaving a load balancer's rotation without failing a request. At SIGTERM (what
 * Docker, Kubernetes and systemd send) /health/ready starts failing at once (HAProxy, a Kubernetes readiness
 * probe see it), while the API keeps serving for the drain period; only then does
 * the shutdown go on: hooks first, then the HTTP server stops listening and lets
 * in-flight requests finish. The wait is a destroy hook: Nest runs those from the
 * root module outwards, so this one (a feature module's) holds the libraries'
 * (API-key cache subscription, SSO) until the drain is over.
 * SIGINT (Ctrl-C at a terminal) and a close without a signal (the tests'
 * in-process apps) do not wait.
 */
@Injectable()
export class ShutdownDrain implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ShutdownDrain.name);
  private signalledAt: number | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.signalledAt ??= Date.now();
    this.logger.log({ signal, drainMs: this.drainMs }, 'draining: /health/ready now fails');
  };
  private readonly drainMs: number;

  constructor(settings: AppSettings) {
    this.drainMs = drainMs(settings.shutdownGraceMs);
  }

  /** True from the shutdown signal on: readiness fails so no new traffic is routed here. */
  get draining(): boolean {
    return this.signalledAt !== null;
  }

  onApplicationBootstrap(): void {
    // Runs in the same emit as Nest's own shutdown listener, before its first await.
    process.once('SIGTERM', this.onSignal);
  }

  async onModuleDestroy(): Promise<void> {
    process.off('SIGTERM', this.onSignal);
    if (this.signalledAt === null) return;
    const left = this.signalledAt + this.drainMs - Date.now();
    if (left > 0) await sleep(left);
  }
}
