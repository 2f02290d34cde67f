import { Controller, RequestMethod, type ControllerOptions } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner } from '@nestjs/core';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
import { ReadYourWritesInterceptor } from './read-your-writes.interceptor.js';

/** Methods that never change anything (RFC 9110 §9.2.1). */
const SAFE_METHODS: ReadonlySet<RequestMethod> = new Set([
  RequestMethod.GET,
  RequestMethod.HEAD,
  RequestMethod.OPTIONS,
]);

/** What every route that may write goes through, in this order, before its own interceptors. */
export const WRITE_INTERCEPTORS = [IdempotencyInterceptor, ReadYourWritesInterceptor] as const;

const scanner = new MetadataScanner();

/**
 * `@Controller` for every controller of the API. It also binds the
 * Idempotency-Key and read-your-writes interceptors to each of the class's
 * routes that may write (any method but GET, HEAD and OPTIONS), its inherited
 * ones included.
 *
 * They are bound per route rather than as APP_INTERCEPTORs because Nest
 * wraps every handler of a global interceptor in observables, reads too,
 * where both would do nothing: that wrapping was a measured share of the
 * read's cost (docs/benchmarks-history.md). They are bound as classes, so each
 * application builds its own instances in the controller's module, as Nest
 * does for `@UseInterceptors(SomeClass)`.
 */
export function ApiController(options: ControllerOptions): ClassDecorator {
  return (target) => {
    Controller(options)(target);
    for (const name of scanner.getAllMethodNames(target.prototype as object)) {
      const handler = (target.prototype as Record<string, unknown>)[name];
      if (typeof handler === 'function' && mayWrite(handler)) bindWriteInterceptors(handler);
    }
  };
}

function mayWrite(handler: object): boolean {
  if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) return false;
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return method !== undefined && !SAFE_METHODS.has(method);
}

function bindWriteInterceptors(handler: object): void {
  const own = ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[]).filter(
    (interceptor) => !(WRITE_INTERCEPTORS as readonly unknown[]).includes(interceptor),
  );
  Reflect.defineMetadata(INTERCEPTORS_METADATA, [...WRITE_INTERCEPTORS, ...own], handler);
}
