import type { Call, RequestOptions, Transport } from '../transport.js';

/** What every resource shares: the client's transport. */
export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected call<T>(call: Call, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>(call, options);
  }
}

/** A path segment from an id, escaped so an id can never change the path. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}

/** An analyst's submission: the API's JSON fields, and sketches (PNG, JPEG or SVG files) to upload. */
export interface Submission {
  descriptors: string[];
  coordinates?: { latitude: number; longitude: number };
  notes?: string;
  confidence?: number;
  /** Up to 10 files; with any, the submission goes as multipart/form-data. */
  sketches?: Blob[];
}

/** The POST of a submission: JSON without sketches, a form with them (the API's two shapes). */
export function submissionCall(path: string, submission: Submission): Call {
  const { sketches, ...fields } = submission;
  if (!sketches || sketches.length === 0) return { method: 'POST', path, body: fields };
  const form = new FormData();
  for (const descriptor of fields.descriptors) form.append('descriptors', descriptor);
  if (fields.coordinates) {
    form.append('latitude', String(fields.coordinates.latitude));
    form.append('longitude', String(fields.coordinates.longitude));
  }
  if (fields.notes !== undefined) form.append('notes', fields.notes);
  if (fields.confidence !== undefined) form.append('confidence', String(fields.confidence));
  sketches.forEach((sketch, index) =>
    form.append(
      'sketches',
      sketch,
      'name' in sketch && typeof sketch.name === 'string' ? sketch.name : `sketch-${index + 1}`,
    ),
  );
  return { method: 'POST', path, content: { body: form } };
}
