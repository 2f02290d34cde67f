import type { INestApplication, Type } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { AUTH_METADATA, type AuthDeclaration } from './auth.decorator.js';
import { OPERATION_METHODS } from './openapi-operations.js';

/**
 * Public operations say so: `security: []` ("no credential"), where an
 * operation without `security` would mean "as the document's default" — and
 * the document has none, so linters (Redocly's `security-defined`) and
 * readers could not tell a public route from one whose @Auth was forgotten.
 * Routes are public by @Public() (Nest's scanner drops an empty `security`
 * list, so it is written here); `handWritten` are the authorization server's
 * operations, described by hand, which are public by nature (the client
 * authenticates in the form or with HTTP Basic, as RFC 6749 says).
 */
export function documentPublicOperations(
  app: INestApplication,
  document: OpenAPIObject,
  handWritten: OpenAPIObject['paths'],
): void {
  const publicRoutes = publicRouteIds(app);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation || operation.security !== undefined) continue;
      const routeId = (operation.operationId ?? '').replace(/_v\d+$/, '');
      if (publicRoutes.has(routeId) || handWritten[path]?.[method] !== undefined) {
        operation.security = [];
      }
    }
  }
}

/** `Controller_method` of every route declared @Public(), on the method or its controller. */
function publicRouteIds(app: INestApplication): Set<string> {
  const scanner = new MetadataScanner();
  const ids = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      for (const method of scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[method] as object;
        const declaration = (Reflect.getMetadata(AUTH_METADATA, handler) ??
          Reflect.getMetadata(AUTH_METADATA, controller)) as AuthDeclaration | undefined;
        if (declaration === 'public') ids.add(`${controller.name}_${method}`);
      }
    }
  }
  return ids;
}
