import { Injectable } from '@nestjs/common';
import {
  TrackRecords,
  trackRecordSentence,
  WORK_KINDS,
  type Analyst,
  type TrackRecord,
} from '#analysts';
import { rateDto } from '../../http/rate.dto.js';
import type { AnalystTrackRecordDto, TrackRecordDto } from './analyst-response-v2.dto.js';

/** A member's track record as GET /v2/analysts/{id} shows it: overall, then by kind of work. */
@Injectable()
export class AnalystTrackRecords {
  constructor(private readonly records: TrackRecords) {}

  async of(analyst: Analyst): Promise<AnalystTrackRecordDto> {
    const { organizationId, id } = analyst;
    const [[overall, session, analysis, dowsing], byModality] = await Promise.all([
      Promise.all([
        this.records.of(organizationId, [id]),
        ...WORK_KINDS.map((kind) => this.records.of(organizationId, [id], { kind })),
      ]),
      this.records.byKindAndModality(organizationId, id),
    ]);
    const dto = (records: Map<string, TrackRecord> | undefined) =>
      toTrackRecordDto(records!.get(id)!);
    return {
      ...dto(overall),
      by_kind: { session: dto(session), analysis: dto(analysis), dowsing: dto(dowsing) },
      by_modality: byModality.map(({ kind, modality, record }) => ({
        kind,
        modality,
        ...toTrackRecordDto(record),
      })),
    };
  }
}

export function toTrackRecordDto(record: TrackRecord): TrackRecordDto {
  return {
    trials: record.trials,
    hits: record.hits,
    hit_rate: rateDto(record.hitRate),
    saic_accuracy: record.saicAccuracy,
    saic_reliability: record.saicReliability,
    evidence: record.evidence,
    summary: trackRecordSentence(record),
  };
}
