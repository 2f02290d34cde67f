import { createHash } from 'node:crypto';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import type { Request } from 'express';
import { AppError, canonicalJson } from '#common';
import { drain, multipartUploadLimits, type MultipartLimits } from './streamed-bodies.js';

export type { MultipartLimits } from './streamed-bodies.js';

/** A multipart/form-data body, read whole: text fields by name (in order), then the files in order. */
export interface MultipartForm {
  fields: Map<string, string[]>;
  files: { field: string; filename: string | null; bytes: Buffer }[];
}

/** Longest field name read; a longer one is refused rather than cut. */
const MAX_FIELD_NAME_BYTES = 200;
/** Headers one part may have (Content-Disposition, Content-Type, a few more). */
const MAX_PART_HEADERS = 16;

/**
 * Each request's body is read once: the Idempotency-Key interceptor may read
 * it (to hash it) before the route does, and both get the same form.
 */
const readForms = new WeakMap<Request, Promise<MultipartForm>>();

/**
 * The multipart/form-data body of a request whose body parsing left it unread
 * (streamed-bodies.ts: multipartUploadLimits), read whole into memory within
 * `limits`. Over a limit — too many files, a file over maxFileBytes, too many
 * or too long fields — is 413 PAYLOAD_TOO_LARGE naming the field (`sketches`);
 * a body that is not well-formed multipart is 400 INVALID_REQUEST naming
 * `body`. Reading stops at the first fault and the rest of the body is read
 * off and dropped, so the client gets the answer. A file part sent with no
 * file chosen (empty name, no bytes: a browser's empty file input) is left out.
 */
export function readMultipartForm(
  request: Request,
  limits: MultipartLimits,
): Promise<MultipartForm> {
  let form = readForms.get(request);
  if (!form) {
    form = parse(request, limits);
    readForms.set(request, form);
  }
  return form.then((read) => withinLimits(read, limits));
}

/**
 * What an Idempotency-Key is checked against for a multipart request: its
 * fields and its files' names and SHA-256, not the raw bytes, so a retry that
 * builds the same form again (with a new boundary, as every FormData does)
 * is the same request.
 */
export function multipartRequestHash(form: MultipartForm): string {
  const fields = Object.fromEntries(form.fields);
  const files = form.files.map((file) => ({
    field: file.field,
    filename: file.filename,
    sha256: createHash('sha256').update(file.bytes).digest('hex'),
  }));
  return createHash('sha256')
    .update(`multipart/form-data\n${canonicalJson({ fields, files })}`)
    .digest('hex');
}

/** The limits of the route, for a request that takes multipart (see multipartUploadLimits). */
export { multipartUploadLimits };

function tooLarge(field: string, issue: string): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `Request body too large: ${field} ${issue}`, {
    field,
    issue,
  });
}

function malformed(issue: string): AppError {
  return AppError.invalid('body', `is not well-formed multipart/form-data: ${issue}`);
}

/** A form read under looser limits (an earlier read of the same request) is held to these too. */
function withinLimits(form: MultipartForm, limits: MultipartLimits): MultipartForm {
  const fileField = form.files[0]?.field ?? 'files';
  if (form.files.length > limits.maxFiles) {
    throw tooLarge(fileField, `can hold at most ${limits.maxFiles} files`);
  }
  const big = form.files.find((file) => file.bytes.length > limits.maxFileBytes);
  if (big)
    throw tooLarge(big.field, `has a file larger than ${describeBytes(limits.maxFileBytes)}`);
  const fieldCount = [...form.fields.values()].reduce((sum, values) => sum + values.length, 0);
  if (fieldCount > limits.maxFields)
    throw tooLarge('body', `has more than ${limits.maxFields} fields`);
  for (const [name, values] of form.fields) {
    if (values.some((value) => Buffer.byteLength(value) > limits.maxFieldBytes)) {
      throw tooLarge(name, `is longer than ${describeBytes(limits.maxFieldBytes)}`);
    }
  }
  return form;
}

function parse(request: Request, limits: MultipartLimits): Promise<MultipartForm> {
  return new Promise<MultipartForm>((resolve, reject) => {
    const form: MultipartForm = { fields: new Map(), files: [] };
    let settled = false;
    let pending = 0;
    let finished = false;
    let fileCount = 0;

    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      parser.destroy();
      if (!request.complete && (request.destroyed || request.readableAborted)) {
        reject(AppError.invalid('body', 'was cut off before its end: nothing of it was used'));
        return;
      }
      void drain(request).then(() => reject(error));
    };
    const done = () => {
      if (settled || !finished || pending > 0) return;
      settled = true;
      resolve(form);
    };

    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: request.headers as never,
        defCharset: 'utf8',
        limits: {
          // One more than allowed, so the one too many is seen (and named) rather than skipped.
          files: limits.maxFiles + 1,
          fileSize: limits.maxFileBytes,
          fields: limits.maxFields,
          fieldSize: limits.maxFieldBytes,
          fieldNameSize: MAX_FIELD_NAME_BYTES,
          headerPairs: MAX_PART_HEADERS,
        },
      });
    } catch (error) {
      // No boundary in the Content-Type, or not multipart at all.
      void drain(request).then(() => reject(malformed(messageOf(error))));
      return;
    }

    parser.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated)
        return fail(malformed(`a field name is longer than ${MAX_FIELD_NAME_BYTES} bytes`));
      if (valueTruncated) {
        return fail(tooLarge(name, `is longer than ${describeBytes(limits.maxFieldBytes)}`));
      }
      const values = form.fields.get(name) ?? [];
      values.push(value);
      form.fields.set(name, values);
    });
    parser.on('fieldsLimit', () =>
      fail(tooLarge('body', `has more than ${limits.maxFields} fields`)),
    );
    parser.on('file', (field: string, stream: BusboyFileStream, filename: string | undefined) => {
      fileCount++;
      if (fileCount > limits.maxFiles) {
        stream.resume();
        return fail(tooLarge(field, `can hold at most ${limits.maxFiles} files`));
      }
      pending++;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(tooLarge(field, `has a file larger than ${describeBytes(limits.maxFileBytes)}`)),
      );
      stream.on('error', (error: unknown) => fail(malformed(messageOf(error))));
      stream.on('end', () => {
        pending--;
        if (stream.truncated) return;
        const bytes = Buffer.concat(chunks);
        const name = filename ? filename : null;
        if (name !== null || bytes.length > 0) form.files.push({ field, filename: name, bytes });
        done();
      });
    });
    parser.on('error', (error: unknown) => fail(malformed(messageOf(error))));
    parser.on('finish', () => {
      finished = true;
      done();
    });
    request.on('aborted', () => fail(malformed('the body was cut off')));
    request.pipe(parser);
  });
}

function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 200) || 'unreadable';
}
