import type { Call, RequestOptions, Transport } from '../transport.js';

/** What every resource shares: the client's transport. */
export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected call<T>(call: Call, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>(call, options);
  }
}

/** A path segment from an id, escaped so an id can never change the path. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
