/** A write operation of the served OpenAPI document, as the matrices walk them. */
export interface WriteOperation {
  method: string;
  path: string;
  liveOnly: boolean;
  /** `x-audit-actions`: what the operation records in the audit log when it succeeds. */
  auditActions: string[];
  parameters: { name: string; in: string; example?: string; schema?: { example?: string } }[];
  /** The request body's first documented example (`{}` when it documents none). */
  example: unknown;
}

type Operations = Record<string, Record<string, Record<string, any>>>;

/**
 * Every operation of the document that changes something and needs a
 * credential (`x-required-scopes`), deletions last so the operations before
 * them still find the resources.
 */
export function writeOperations(document: { paths: unknown }): WriteOperation[] {
  const operations: WriteOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Operations)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (['get', 'head', 'options'].includes(method) || !operation['x-required-scopes']) continue;
      const json = operation.requestBody?.content?.['application/json'];
      const examples = json?.examples as Record<string, { value: unknown }> | undefined;
      operations.push({
        method,
        path,
        liveOnly: operation['x-live-only'] === true,
        auditActions: operation['x-audit-actions'] ?? [],
        parameters: operation.parameters ?? [],
        example: examples ? Object.values(examples)[0]!.value : (json?.example ?? {}),
      });
    }
  }
  return operations.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
}

/** The operation's path with each parameter taken from `ids`, else the document's example. */
export function concretePath(operation: WriteOperation, ids: Record<string, string>): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    return encodeURIComponent(
      ids[name] ?? parameter?.example ?? parameter?.schema?.example ?? `unknown-${name}`,
    );
  });
}
