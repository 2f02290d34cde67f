import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every outbound connection of the service goes through libs/outbound, where
 * the destination policy is applied (issue 37): this walks the source tree of
 * the apps and libs and fails on any other place that opens a socket, makes
 * an HTTP request or imports undici's clients. The dashboard (browser code),
 * the SDK and CLI packages (clients of the API), tests, benches and scripts
 * are not the service.
 */
const ROOT = join(import.meta.dirname, '../../..');
const SCANNED = ['apps/api/src', 'apps/worker/src', 'apps/cli/src', 'libs'];
const EXEMPT = ['libs/outbound/'];

/** Module → the members that connect outward (`*`: every value it exports). */
const CONNECTING_MODULES: Record<string, string[]> = {
  net: ['connect', 'createConnection', 'Socket'],
  tls: ['connect', 'TLSSocket'],
  http: ['request', 'get', 'Agent'],
  https: ['request', 'get', 'Agent'],
  http2: ['connect'],
  dgram: ['createSocket'],
  undici: ['*'],
};

function moduleOf(specifier: string): string | null {
  const bare = specifier.replace(/^node:/, '');
  return bare in CONNECTING_MODULES ? bare : null;
}

/** `file:line: what` for each outward connection the source opens itself. */
function outboundConnections(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  /** Local names bound to a connecting module (namespace or default import). */
  const namespaces = new Map<string, string>();
  /** Local names bound to a connecting member (named import). */
  const members = new Map<string, string>();
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = tree.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${file}:${line + 1}: ${what}`);
  };
  const connects = (module: string, member: string) => {
    const listed = CONNECTING_MODULES[module]!;
    return listed.includes('*') || listed.includes(member);
  };

  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.importClause?.isTypeOnly
    ) {
      const module = moduleOf(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (module !== null && clause) {
        if (clause.name) namespaces.set(clause.name.text, module);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) {
          namespaces.set(bindings.name.text, module);
        } else if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            const member = (element.propertyName ?? element.name).text;
            if (!element.isTypeOnly && connects(module, member)) {
              members.set(element.name.text, `${module}.${member}`);
            }
          }
        }
      }
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      if (name === 'fetch') report(node, 'fetch()');
      if (name === 'require' && ts.isStringLiteral(node.arguments[0] ?? node)) {
        const module = moduleOf((node.arguments[0] as ts.StringLiteral).text);
        if (module !== null) report(node, `require('${module}')`);
      }
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'globalThis' &&
      node.name.text === 'fetch'
    ) {
      report(node, 'globalThis.fetch');
    }
    if (ts.isIdentifier(node) && members.has(node.text) && !isImportName(node)) {
      report(node, members.get(node.text)!);
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      namespaces.has(node.expression.text)
    ) {
      const module = namespaces.get(node.expression.text)!;
      if (connects(module, node.name.text)) report(node, `${module}.${node.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

function isImportName(node: ts.Identifier): boolean {
  return ts.isImportSpecifier(node.parent) || ts.isImportClause(node.parent);
}

function* sourceFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules' && entry !== 'dist') yield* sourceFiles(path);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry) && !/\.(spec|d)\.ts$/.test(entry)) {
      yield path;
    }
  }
}

describe('outbound connections', () => {
  it('are opened in libs/outbound only, by every app and lib of the service', () => {
    const files = SCANNED.flatMap((directory) => [...sourceFiles(join(ROOT, directory))])
      .map((path) => relative(ROOT, path))
      .filter((path) => !EXEMPT.some((exempt) => path.startsWith(exempt)));
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) =>
      outboundConnections(file, readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('finds every way of opening one (the check above can fail)', () => {
    const source = `
      import * as net from 'node:net';
      import tls from 'tls';
      import { request as send, get } from 'node:https';
      import { Agent } from 'undici';
      import type { Socket } from 'node:net';
      import { isIP } from 'node:net';
      net.connect(389, 'directory');
      tls.connect({ host: 'directory', port: 636 });
      send('https://example.com');
      get('https://example.com');
      new Agent();
      await fetch('https://example.com');
      await globalThis.fetch('https://example.com');
      const http = require('node:http');
      isIP('127.0.0.1');
      const socket: Socket | null = null;
    `;
    expect(outboundConnections('probe.ts', source)).toEqual([
      'probe.ts:8: net.connect',
      'probe.ts:9: tls.connect',
      'probe.ts:10: https.request',
      'probe.ts:11: https.get',
      'probe.ts:12: undici.Agent',
      'probe.ts:13: fetch()',
      'probe.ts:14: globalThis.fetch',
      "probe.ts:15: require('http')",
    ]);
  });
});
