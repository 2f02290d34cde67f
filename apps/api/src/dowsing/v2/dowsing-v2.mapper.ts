import type { DowsingQueryEntity } from '#dowsing';
import { completedResult, queryFields, resultV1 } from '../dowsing-mapping.js';
import type { DowsingQueryV2Dto } from './dowsing-v2.dto.js';

/** A query as v2 shows it: the later-generation result (locations, statistical_significance). */
export function toQueryV2(query: DowsingQueryEntity): DowsingQueryV2Dto {
  const result = completedResult(query);
  return {
    ...queryFields(query),
    ...(result && {
      result: {
        ...resultV1(result),
        baseline: result.baseline,
        confidence_interval: result.confidence_interval,
        locations: result.locations,
        statistical_significance: result.statistical_significance,
      },
    }),
  };
}
