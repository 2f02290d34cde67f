import type { OpenAPIObject } from '@nestjs/swagger';

/** The HTTP methods a path item of an OpenAPI document may hold an operation under. */
export const OPERATION_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;

/** Every operation of `document`, with its path and method, in the document's order. */
export function operationsOf(document: OpenAPIObject) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    OPERATION_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ path, method, operation }] : [];
    }),
  );
}
