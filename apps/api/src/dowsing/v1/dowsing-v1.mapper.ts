import type { DowsingQueryEntity } from '#dowsing';
import { completedResult, queryFields, resultV1 } from '../dowsing-mapping.js';
import type { DowsingQueryV1Dto } from './dowsing-v1.dto.js';

/** A query as v1 shows it: the spec's result fields and the variant's own answer. */
export function toQueryV1(query: DowsingQueryEntity): DowsingQueryV1Dto {
  const result = completedResult(query);
  return {
    ...queryFields(query),
    ...(result && { result: resultV1(result) }),
  };
}
