import { Validator } from '@seriousme/openapi-schema-validator';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend } from 'openapi-backend';
import { expect } from 'vitest';

// ajv-formats is CommonJS with a default export; under ESM the function sits on `.default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: never) => void }).default;

/**
 * Checks responses against the OpenAPI document the service itself serves at
 * /docs-json, so the document cannot drift from what the service does: the
 * route must be documented, the status must be documented for it, and a JSON
 * body must match the documented schema.
 */
export class Contract {
  private constructor(
    private readonly backend: OpenAPIBackend,
    readonly document: OpenApiDocument,
  ) {}

  /**
   * The contract of the document served at `baseUrl`. Validating a document and
   * compiling its schemas takes seconds, so that is done once per document and shared
   * by every instance serving the same one: documents of instances differ only in
   * their own address (servers, links), which the comparison leaves out.
   */
  static async load(baseUrl: string): Promise<Contract> {
    const text = await (await fetch(`${baseUrl}/docs-json`)).text();
    const document = JSON.parse(text) as OpenApiDocument;
    const key = text.replaceAll(baseUrl.replace(/\/+$/, ''), '{instance}');
    let backend = backends.get(key);
    if (!backend) {
      backend = compile(document);
      backends.set(key, backend);
      backend.catch(() => backends.delete(key));
    }
    return new Contract(await backend, document);
  }

  check(
    method: string,
    url: string,
    status: number,
    contentType: string | null,
    body: unknown,
  ): void {
    const { searchParams } = new URL(url);
    const pathname = this.pathUnderServer(url);
    const operation = this.backend.matchOperation({
      method,
      path: pathname,
      query: Object.fromEntries(searchParams),
      headers: {},
    });
    const where = `${method} ${pathname} → ${status}`;
    // Unknown routes are answered by the error handler, not an operation.
    if (!operation) {
      expect([404, 405], `${where}: undocumented route`).toContain(status);
      return;
    }
    const responses = operation.responses ?? {};
    expect(Object.keys(responses), `${where}: status not documented`).toContain(String(status));
    // Where the document names the media types of this answer, the answer is one of them.
    const documented = Object.keys(
      (responses[String(status)] as { content?: Record<string, unknown> }).content ?? {},
    );
    if (documented.length > 0 && contentType) {
      const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
      expect(
        documented.some((type) => mediaTypeMatches(type, mediaType)),
        `${where}: sent as ${mediaType}, documented as ${documented.join(', ')}`,
      ).toBe(true);
    }
    // JSON and its +json forms; NDJSON is lines of JSON, not one document to validate.
    if (!/(^|[/+])json\b/.test(contentType ?? '')) return;
    const result = this.backend.validateResponse(body, operation, status);
    expect(result.errors ?? [], `${where}: body does not match the documented schema`).toEqual([]);
  }

  /**
   * What the document's own validation finds wrong in a JSON request body for
   * `operationId`, sent to `path` (under the server): empty when a client
   * generated from the document would send it.
   */
  requestBodyErrors(method: string, path: string, operationId: string, body: unknown): unknown[] {
    const result = this.backend.validateRequest(
      { method, path, headers: { 'content-type': 'application/json' }, body },
      operationId,
    );
    return (result.errors ?? []).filter((error) => error.instancePath.startsWith('/requestBody'));
  }

  /** A URL's path under the longest of the document's servers (the live or the sandbox base) it is under. */
  private pathUnderServer(url: string): string {
    const { origin, pathname } = new URL(url);
    const bases = (this.document.servers ?? [])
      .map((server) => new URL(server.url))
      .filter((base) => base.origin === origin)
      .map((base) => base.pathname.replace(/\/+$/, ''))
      .sort((a, b) => b.length - a.length);
    const base = bases.find((prefix) => pathname.startsWith(`${prefix}/`)) ?? '';
    return pathname.slice(base.length);
  }
}

/** Validated, compiled documents, by served text with the instance's own address left out. */
const backends = new Map<string, Promise<OpenAPIBackend>>();

async function compile(document: OpenApiDocument): Promise<OpenAPIBackend> {
  const result = await new Validator().validate(document as never);
  expect(result.errors ?? [], 'the served OpenAPI document is valid').toEqual([]);
  expect(result.valid).toBe(true);
  const backend = new OpenAPIBackend({
    definition: document as never,
    customizeAjv: (ajv) => {
      addFormats(ajv as never);
      return ajv;
    },
  });
  await backend.init();
  return backend;
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  const [type, subtype] = documented.toLowerCase().split('/');
  const [actualType, actualSubtype] = actual.split('/');
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype);
}

export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string; description?: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        security?: unknown[];
        'x-required-scopes'?: string[];
        'x-any-organization'?: boolean;
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, unknown> };
}
