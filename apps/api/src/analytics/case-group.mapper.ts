import type { GroupSummary } from '#analytics';
import { rateDto } from '../http/rate.dto.js';
import type { CaseGroupDto } from './case-group.dto.js';

/** A group's counts and hit rate, as every analytics answer shows them. */
export function groupDto(group: GroupSummary): CaseGroupDto {
  return {
    cases: group.cases,
    outcomes: { ...group.outcomes },
    hit_rate: group.hitRate && rateDto(group.hitRate),
  };
}
