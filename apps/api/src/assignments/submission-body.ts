import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { MAX_SKETCH_BYTES, MAX_SKETCHES, prepareSketch, type SubmissionInput } from '#analysts';
import { AppError } from '#common';
import { normalizeDescriptor } from '#statistics';
import type { ApiRequest } from '../http/request-context.js';
import { mediaTypeOf } from '../http/streamed-bodies.js';
import { readMultipartForm } from '../http/multipart.js';
import { toValidationError } from '../http/validation.js';
import { MAX_NOTES, SubmissionDto } from './submission.dto.js';

/** Form fields a multipart submission may carry besides its `sketches` files. */
const FORM_FIELDS = ['descriptors', 'latitude', 'longitude', 'notes', 'confidence'] as const;

/**
 * An analyst's submission from a results request: a JSON body (parsed as
 * usual), or multipart/form-data with the same fields as form fields and the
 * sketches as files. Both are held to the rules of SubmissionDto; sketches are
 * typed by their bytes and SVG is sanitised (prepareSketch).
 */
export async function readSubmission(request: ApiRequest): Promise<SubmissionInput> {
  if (mediaTypeOf(request.headers['content-type']) !== 'multipart/form-data') {
    return submissionOf(await validated(request.body));
  }
  const form = await readMultipartForm(request, {
    maxFiles: MAX_SKETCHES,
    maxFileBytes: MAX_SKETCH_BYTES,
    maxFields: 200,
    maxFieldBytes: MAX_NOTES * 4,
  });
  for (const name of form.fields.keys()) {
    if (!(FORM_FIELDS as readonly string[]).includes(name)) {
      throw AppError.invalid(name, 'is not a recognised field');
    }
  }
  const strayFile = form.files.find((file) => file.field !== 'sketches');
  if (strayFile) throw AppError.invalid(strayFile.field, 'files go under `sketches`');
  const submission = submissionOf(await validated(plainFromForm(form.fields)));
  const sketches = [];
  for (const [index, file] of form.files.entries()) {
    const prepared = await prepareSketch(file.bytes, index);
    sketches.push({
      contentType: prepared.contentType,
      bytes: prepared.bytes,
      sha256: prepared.sha256,
    });
  }
  return { ...submission, ...(sketches.length > 0 ? { sketches } : {}) };
}

async function validated(plain: unknown): Promise<SubmissionDto> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw AppError.invalid('body', 'must be a JSON object with `descriptors`');
  }
  const dto = plainToInstance(SubmissionDto, plain);
  const errors = await validate(dto, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  if (errors.length > 0) throw toValidationError(errors);
  return dto;
}

function submissionOf(dto: SubmissionDto): SubmissionInput {
  const descriptors = [
    ...new Set(dto.descriptors.map(normalizeDescriptor).filter((d) => d.length > 0)),
  ];
  return {
    descriptors,
    coordinates: dto.coordinates
      ? { latitude: dto.coordinates.latitude, longitude: dto.coordinates.longitude }
      : null,
    notes: dto.notes ?? null,
    confidence: dto.confidence ?? null,
  };
}

/** Form fields as the JSON body would hold them: numbers parsed, descriptors listed. */
function plainFromForm(fields: Map<string, string[]>): Record<string, unknown> {
  const one = (name: string): string | undefined => {
    const values = fields.get(name);
    if (values && values.length > 1) throw AppError.invalid(name, 'is given more than once');
    return values?.[0];
  };
  const number = (name: string): number | string | undefined => {
    const value = one(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    return value.trim() !== '' && Number.isFinite(parsed) ? parsed : value;
  };
  const descriptors = (fields.get('descriptors') ?? []).flatMap((value) => value.split(','));
  const latitude = number('latitude');
  const longitude = number('longitude');
  if ((latitude === undefined) !== (longitude === undefined)) {
    throw AppError.invalid(
      latitude === undefined ? 'latitude' : 'longitude',
      'give latitude and longitude together',
    );
  }
  return {
    descriptors,
    ...(latitude !== undefined ? { coordinates: { latitude, longitude } } : {}),
    ...(one('notes') !== undefined ? { notes: one('notes') } : {}),
    ...(number('confidence') !== undefined ? { confidence: number('confidence') } : {}),
  };
}
