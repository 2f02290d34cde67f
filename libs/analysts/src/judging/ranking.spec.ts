import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError, toPublicId } from '#common';
import { parseRanking } from './ranking.js';

const ids = [randomUUID(), randomUUID(), randomUUID()];
const pub = (id: string) => toPublicId('candidate', id);

function issueOf(ranking: string[]): string {
  try {
    parseRanking(ranking, ids);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details.field).toBe('ranking');
    return (error as AppError).details.issue!;
  }
  throw new Error('accepted');
}

describe('parseRanking', () => {
  it('takes a permutation of the candidates, best first', () => {
    expect(parseRanking([pub(ids[2]!), pub(ids[0]!), pub(ids[1]!)], ids)).toEqual([
      ids[2],
      ids[0],
      ids[1],
    ]);
  });

  it('names what is missing, repeated or unknown', () => {
    expect(issueOf([pub(ids[0]!), pub(ids[1]!)])).toContain(`missing: ${pub(ids[2]!)}`);
    expect(issueOf([pub(ids[0]!), pub(ids[0]!), pub(ids[1]!), pub(ids[2]!)])).toContain(
      `named more than once: ${pub(ids[0]!)}`,
    );
    const stranger = pub(randomUUID());
    expect(issueOf([pub(ids[0]!), pub(ids[1]!), pub(ids[2]!), stranger])).toContain(
      `not candidates of this task: ${stranger}`,
    );
    expect(issueOf([])).toContain('missing');
    expect(issueOf(['tgt_x', pub(ids[0]!), pub(ids[1]!), pub(ids[2]!)])).toContain('tgt_x');
  });
});
