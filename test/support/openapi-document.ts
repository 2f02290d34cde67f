/** Reading the served OpenAPI document: its operations, their schemas and request examples. */

export type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** The path template, `/v1/sessions/{session_id}`. */
  path: string;
  operationId: string;
  spec: Record<string, any>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function operationsOf(document: {
  paths: Record<string, Record<string, any>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method: method.toUpperCase(),
      path,
      operationId: item[method].operationId ?? `${method} ${path}`,
      spec: item[method],
    })),
  );
}

export function label(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

/** Follows `$ref`s into `components.schemas`. */
export function resolve(document: any, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    current = document.components.schemas[String(current.$ref).split('/').pop()!];
  }
  return current;
}

/** The media type and schema of an operation's request body, if it has one. */
export function requestBodyOf(
  document: any,
  operation: Operation,
): { mediaType: string; media: Record<string, any>; schema: Schema } | null {
  const content = operation.spec.requestBody?.content as Record<string, any> | undefined;
  if (!content) return null;
  const mediaType = Object.keys(content)[0]!;
  return {
    mediaType,
    media: content[mediaType],
    schema: resolve(document, content[mediaType].schema),
  };
}

/**
 * The request bodies Swagger UI's "Try it out" offers for an operation: each
 * of the media type's `examples`, else its `example`, else the body it builds
 * from the schema (every property, from its example, default or first enum
 * value).
 */
export function documentedExamples(
  document: any,
  operation: Operation,
): { name: string; value: unknown }[] {
  const body = requestBodyOf(document, operation);
  if (!body) return [];
  if (body.media.examples) {
    return Object.entries(body.media.examples as Record<string, { value: unknown }>).map(
      ([name, example]) => ({ name, value: example.value }),
    );
  }
  if (body.media.example !== undefined) return [{ name: 'example', value: body.media.example }];
  return [{ name: 'built from the schema', value: sampleOf(document, body.schema) }];
}

/** What Swagger UI fills in for a schema. */
export function sampleOf(document: any, schema: Schema | undefined, depth = 0): unknown {
  const resolved = resolve(document, schema);
  if (resolved.example !== undefined) return resolved.example;
  if (resolved.default !== undefined) return resolved.default;
  if (resolved.enum) return resolved.enum[0];
  if (depth > 8) return null;
  const type = resolved.type ?? (resolved.properties ? 'object' : undefined);
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((resolved.properties ?? {}) as Record<string, Schema>).map(
          ([name, property]) => [name, sampleOf(document, property, depth + 1)],
        ),
      );
    case 'array':
      return [sampleOf(document, resolved.items, depth + 1)];
    case 'integer':
    case 'number':
      return resolved.minimum ?? 0;
    case 'boolean':
      return true;
    case 'string':
      return resolved.format === 'date-time' ? new Date().toISOString() : 'string';
    default:
      return {};
  }
}
