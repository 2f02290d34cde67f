import { Contract } from './contract.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  apiKey?: string;
  json?: unknown;
  /** A raw body with its own content type (for malformed or non-JSON bodies). */
  raw?: { body: string | Buffer; contentType?: string };
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

/** A small HTTP client over fetch that checks every response against the served contract. */
export class TestClient {
  constructor(
    readonly baseUrl: string,
    readonly contract: Contract,
  ) {}

  /** A client for a running stack, checking against the contract that stack serves. */
  static async for(stack: { baseUrl: string }): Promise<TestClient> {
    return new TestClient(stack.baseUrl, await Contract.load(stack.baseUrl));
  }

  async request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    let body: string | Buffer | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.raw) {
      if (options.raw.contentType) headers['content-type'] = options.raw.contentType;
      body = options.raw.body;
    }
    const url = `${this.baseUrl}${path}`;
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    // JSON and its +json forms (scim+json, geo+json), not NDJSON, which stays text.
    const parsed =
      /(^|[/+])json\b/.test(contentType ?? '') && text !== '' ? JSON.parse(text) : text;
    this.contract.check(method, url, response.status, contentType, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }

  patch<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PATCH', path, options);
  }

  put<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PUT', path, options);
  }

  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
