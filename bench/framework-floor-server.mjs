// One of bench/framework-floor.mjs's servers: `node bench/framework-floor-server.mjs <kind> <port>`
// with kind node | nest-express | nest-express-api | nest-fastify (nest-express-api: Nest on
// Express through the API's own adapter, dist/apps/api/src/http/api-http-adapter.js, built). Each answers GET /v1/sessions/{session_id} the same
// way, with no I/O, so that what they cost per request is the framework and nothing else:
//   - an X-Request-Id header, set by a middleware (the API's request-id middleware);
//   - an async guard that reads Authorization, awaits once (the API's credential and limiter
//     lookups) and sets the five request-limit headers (the API's AuthGuard);
//   - the handler awaits once (the session's SELECT) and returns the 8 fields of a v1 status read.
// The Nest servers register 50 other routes (10 controllers of 5) before the sessions controller,
// as a sessions read in the API passes about 50 routes of other controllers first. Both are built
// as the API builds itself (no body parser, ETag off, x-powered-by off); node:http matches one
// regular expression, like bench/reference-server.mjs.

import http from 'node:http';
import 'reflect-metadata';
import { Controller, Get, Injectable, Module, Param, Post } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);

const LIMIT_HEADERS = {
  'X-RateLimit-Limit': '6000',
  'X-RateLimit-Remaining': '5999',
  'X-RateLimit-Reset': '1764000000',
  'RateLimit-Policy': '"minute";q=6000;w=60',
  RateLimit: '"minute";r=5999;t=60',
};

function statusOf(sessionId) {
  return {
    session_id: sessionId,
    type: 'remote_viewing',
    status: 'queued',
    progress: 0,
    current_phase: 'queued',
    results_available: false,
    created_at: '2026-11-24T00:00:00.000Z',
    estimated_completion: '2026-11-24T00:30:00.000Z',
  };
}

async function startNode() {
  const route = /^\/v1\/sessions\/([^/]+)$/;
  const server = http.createServer(async (request, response) => {
    response.setHeader('X-Request-Id', 'req_01jh2x7v4ke8rbk3a8y0v0d7qz');
    const match = request.method === 'GET' ? route.exec(request.url) : null;
    if (!match) {
      response.writeHead(404).end();
      return;
    }
    const allowed = await guard(request.headers.authorization, (name, value) =>
      response.setHeader(name, value),
    );
    if (!allowed) {
      response.writeHead(401).end();
      return;
    }
    let sessionId;
    try {
      sessionId = decodeURIComponent(match[1]);
    } catch {
      response.writeHead(400).end();
      return;
    }
    const body = JSON.stringify(await read(sessionId));
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(body);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}

/** Whether the request may go on (it carries Authorization); sets the limit headers when it may. */
async function guard(authorization, setHeader) {
  await null;
  if (!authorization) return false;
  for (const [name, value] of Object.entries(LIMIT_HEADERS)) setHeader(name, value);
  return true;
}

async function read(sessionId) {
  await null;
  return statusOf(sessionId);
}

// Decorators applied as functions: this file is plain JavaScript, run without a compiler.
function decorateMethod(target, name, ...decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, name);
  for (const decorator of decorators) decorator(target.prototype, name, descriptor);
}

class FloorGuard {
  async canActivate(context) {
    const http = context.switchToHttp();
    const response = http.getResponse();
    return guard(http.getRequest().headers.authorization, (name, value) =>
      response.header(name, value),
    );
  }
}
Injectable()(FloorGuard);

function otherController(index) {
  class Other {
    list() {
      return [];
    }
    create() {
      return {};
    }
    one(id) {
      return { id };
    }
    cancel(id) {
      return { id };
    }
    results(id) {
      return { id };
    }
  }
  Controller(`v1/things-${index}`)(Other);
  decorateMethod(Other, 'list', Get());
  decorateMethod(Other, 'create', Post());
  for (const [name, path, Method] of [
    ['one', ':id', Get],
    ['cancel', ':id/cancel', Post],
    ['results', ':id/results', Get],
  ]) {
    Param('id')(Other.prototype, name, 0);
    decorateMethod(Other, name, Method(path));
  }
  return Other;
}

class Sessions {
  status(sessionId) {
    return read(sessionId);
  }
}
Controller('v1/sessions')(Sessions);
Param('session_id')(Sessions.prototype, 'status', 0);
decorateMethod(Sessions, 'status', Get(':session_id'));

class FloorModule {}
Module({
  controllers: [...Array.from({ length: 10 }, (_, i) => otherController(i)), Sessions],
  providers: [{ provide: APP_GUARD, useClass: FloorGuard }],
})(FloorModule);

async function startNest() {
  const options = { bodyParser: false, logger: false };
  let app;
  if (kind === 'nest-fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    app = await NestFactory.create(FloorModule, new FastifyAdapter(), options);
  } else {
    const adapter =
      kind === 'nest-express-api'
        ? new (await import('../dist/apps/api/src/http/api-http-adapter.js')).ApiHttpAdapter()
        : undefined;
    app = adapter
      ? await NestFactory.create(FloorModule, adapter, options)
      : await NestFactory.create(FloorModule, options);
    const express = app.getHttpAdapter().getInstance();
    express.disable('x-powered-by');
    express.set('etag', false);
  }
  app.use((request, response, next) => {
    response.setHeader('X-Request-Id', 'req_01jh2x7v4ke8rbk3a8y0v0d7qz');
    next();
  });
  await app.listen(port, '127.0.0.1');
}

if (kind === 'node') await startNode();
else if (['nest-express', 'nest-express-api', 'nest-fastify'].includes(kind)) await startNest();
else
  throw new Error(`unknown kind "${kind}": node, nest-express, nest-express-api or nest-fastify`);
process.stdout.write(`${kind} listening on ${port}\n`);
