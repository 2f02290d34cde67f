import { toPublicId } from '#common';
import type { SessionResultsData } from '#engines';
import type { SessionEntity } from './entities/session.entity.js';

/**
 * Where a sketch of a session's results is served: an analyst's upload by its
 * file name (`skt_….png`), a simulated sketch by its index (`3.svg`).
 */
export function sessionSketchUrl(
  publicUrl: string,
  session: Pick<SessionEntity, 'id' | 'results'>,
  index: number,
): string {
  const sketches = ((session.results as SessionResultsData | null)?.sketches ?? []) as {
    index: number;
    file?: string;
  }[];
  const file = sketches.find((sketch) => sketch.index === index)?.file ?? `${index}.svg`;
  return `${publicUrl}/v1/sessions/${toPublicId('session', session.id)}/sketches/${file}`;
}
