import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { sequencedTransition, Sql, type JsonObject, type Transaction } from '#database';
import {
  ANALYSIS_DEFAULT_BASELINE,
  EngineRegistry,
  type AnalysisEngine,
  type AnalysisPlan,
  type CompletedAnalysisOutcome,
  type EarlierWork,
  type FailedAnalysisOutcome,
} from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { requestOf } from './analyses.service.js';
import {
  analysisCompletedData,
  analysisFailedData,
  analysisProgressData,
  analysisStartedData,
} from './analysis-events.js';
import { ANALYSIS_COLUMNS, analysisFromRow, type AnalysisRow } from './analysis-rows.js';
import { EarlierWorkFinder } from './earlier-work.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';
import { ReferenceMaterialReader } from './material/reference-material-reader.js';
import type { MaterialItem } from './material/material-item.js';

/** Reference items of one analysis fetched at once. */
const FETCH_CONCURRENCY = 4;

/** What a step gathered, stored with its progress so a resumed run does not gather it again. */
interface Gathered {
  material?: MaterialItem[];
  earlierWork?: EarlierWork[];
}

/**
 * Carries an analysis through its lifecycle: queued → processing →
 * completed | failed, one step of the engine's plan at a time (fetching and
 * reading the material, cross-referencing earlier work, the analysts' work,
 * the assessment), persisting and announcing each. Every step is one
 * transaction guarded by the stored state, so a job that runs again after a
 * crash resumes at the step where the last one stopped, and a cancelled or
 * deleted analysis stops at its next step.
 */
@Injectable()
export class AnalysisRunner {
  private readonly logger = new Logger(AnalysisRunner.name);

  constructor(
    private readonly sql: Sql,
    private readonly events: EventLog,
    private readonly organizations: OrganizationsService,
    private readonly engines: EngineRegistry,
    private readonly settings: AppSettings,
    private readonly reader: ReferenceMaterialReader,
    private readonly earlier: EarlierWorkFinder,
    private readonly verified: VerifiedRecords,
  ) {}

  async run(analysisId: string, requestId: string | null, signal?: AbortSignal): Promise<void> {
    const analysis = await this.load(analysisId);
    if (!analysis || analysis.status === 'completed' || analysis.status === 'failed') return;
    // People do analyst analyses (AnalystAnalyses): there is nothing for the worker to pace.
    if (analysis.engine === 'analyst') return;
    const orgSeed = await this.organizations.engineSeed(analysis.organizationId);
    // The engine the analysis was created for, whatever the deployment would pick today.
    const engine = this.engines.analysis(analysis.engine);
    const plan = engine.plan(requestOf(analysis), orgSeed);
    if (analysis.status === 'queued' && !(await this.start(analysis, plan, requestId))) return;

    const steps = analysis.steps ?? plan.steps;
    for (let index = analysis.stepsDone; index < steps.length; index += 1) {
      await sleep(
        this.settings.simulatedStepMs * plan.stepMultiplier,
        undefined,
        signal ? { signal } : undefined,
      );
      if (index === steps.length - 1) {
        await this.finish(analysis, engine, orgSeed, requestId);
        return;
      }
      const gathered = await this.gather(analysis, steps[index]!, plan, signal);
      if (!(await this.advance(analysis, index + 1, gathered, requestId))) return;
    }
  }

  private async load(analysisId: string): Promise<AnalysisEntity | null> {
    const [row] = await this.sql.rows<AnalysisRow>(
      `SELECT ${ANALYSIS_COLUMNS.join(', ')} FROM analyses WHERE id = $1`,
      [analysisId],
    );
    return row ? analysisFromRow(row) : null;
  }

  /** The real work of a step, where it has any; the rest of the plan is paced time. */
  private async gather(
    analysis: AnalysisEntity,
    step: string,
    plan: AnalysisPlan,
    signal: AbortSignal | undefined,
  ): Promise<Gathered> {
    if (step === 'fetching_material' && analysis.material === null) {
      return { material: await this.fetchMaterial(analysis, signal) };
    }
    if (step === 'cross_referencing' && analysis.earlierWork === null && plan.crossReference) {
      return { earlierWork: await this.earlier.find(analysis, plan.crossReference.radiusMeters) };
    }
    return {};
  }

  /** Every photo and document, FETCH_CONCURRENCY at a time; a failure is an item, never an error. */
  private async fetchMaterial(
    analysis: AnalysisEntity,
    signal: AbortSignal | undefined,
  ): Promise<MaterialItem[]> {
    const wanted = [
      ...analysis.referenceMaterial.photos.map((url) => ({ url, kind: 'photo' as const })),
      ...analysis.referenceMaterial.documents.map((url) => ({ url, kind: 'document' as const })),
    ];
    const items: MaterialItem[] = new Array(wanted.length);
    let next = 0;
    const fetchNext = async (): Promise<void> => {
      while (next < wanted.length) {
        const i = next++;
        items[i] = await this.reader.read(wanted[i]!.url, wanted[i]!.kind, signal);
      }
    };
    await Promise.all(Array.from({ length: FETCH_CONCURRENCY }, fetchNext));
    return items;
  }

  private async start(
    analysis: AnalysisEntity,
    plan: AnalysisPlan,
    requestId: string | null,
  ): Promise<boolean> {
    return this.transition(analysis, async (tx, sequence) => {
      const startedAt = new Date();
      const updated = await tx.query(
        `UPDATE analyses SET status = 'processing', started_at = $2, steps = $3, engine_version = $4,
                event_sequence = $5, updated_at = now()
          WHERE id = $1 AND status = 'queued'`,
        [analysis.id, startedAt, plan.steps, plan.engineVersion, sequence],
      );
      if (!updated.rowCount) return false;
      Object.assign(analysis, {
        status: 'processing',
        startedAt,
        steps: [...plan.steps],
        engineVersion: plan.engineVersion,
        eventSequence: sequence,
      });
      await this.events.append(
        tx,
        tenantOf(analysis),
        'analysis.started',
        analysisStartedData(analysis, sequence),
        requestId,
      );
      return true;
    });
  }

  private async advance(
    analysis: AnalysisEntity,
    stepsDone: number,
    gathered: Gathered,
    requestId: string | null,
  ): Promise<boolean> {
    return this.transition(analysis, async (tx, sequence) => {
      const updated = await tx.query(
        `UPDATE analyses SET steps_done = $2, event_sequence = $3,
                material = COALESCE($4, material), earlier_work = COALESCE($5, earlier_work),
                updated_at = now()
          WHERE id = $1 AND status = 'processing' AND steps_done < $2`,
        [
          analysis.id,
          stepsDone,
          sequence,
          gathered.material ? JSON.stringify(gathered.material) : null,
          gathered.earlierWork ? JSON.stringify(gathered.earlierWork) : null,
        ],
      );
      if (!updated.rowCount) return false;
      Object.assign(analysis, { stepsDone, eventSequence: sequence });
      if (gathered.material) analysis.material = gathered.material;
      if (gathered.earlierWork) analysis.earlierWork = gathered.earlierWork as JsonObject[];
      await this.events.append(
        tx,
        tenantOf(analysis),
        'analysis.progress_updated',
        analysisProgressData(analysis, sequence),
        requestId,
      );
      return true;
    });
  }

  /**
   * The last step: the engine's assessment of everything gathered and of the
   * organisation's verified outcomes of this analysis type (read now, so the
   * assessment rests on the record as it stands when the analysis finishes),
   * stored with its event.
   */
  private async finish(
    analysis: AnalysisEntity,
    engine: AnalysisEngine,
    orgSeed: string,
    requestId: string | null,
  ): Promise<void> {
    const verified = await this.verified.of(tenantOf(analysis), {
      type: 'analysis',
      subtypes: [analysis.analysisType],
      defaultP0: ANALYSIS_DEFAULT_BASELINE,
    });
    const outcome = await engine.run(
      {
        ...requestOf(analysis),
        material: analysis.material ?? [],
        earlierWork: (analysis.earlierWork ?? []) as unknown as EarlierWork[],
        verified,
      },
      orgSeed,
    );
    if (outcome.status === 'completed') await this.complete(analysis, outcome, requestId);
    else await this.fail(analysis, outcome, requestId);
  }

  private async complete(
    analysis: AnalysisEntity,
    outcome: CompletedAnalysisOutcome,
    requestId: string | null,
  ): Promise<void> {
    await this.transition(analysis, async (tx, sequence) => {
      const completedAt = new Date();
      const updated = await tx.query(
        `UPDATE analyses SET status = 'completed', steps_done = $2, completed_at = $3,
                results = $4, score_details = $5, confidence_score = $6, evidence = $7,
                engine_seed = $8, event_sequence = $9, updated_at = now()
          WHERE id = $1 AND status = 'processing'`,
        [
          analysis.id,
          analysis.steps?.length ?? 0,
          completedAt,
          outcome.results,
          outcome.details,
          outcome.results.confidence_score,
          outcome.evidence,
          outcome.seed,
          sequence,
        ],
      );
      if (!updated.rowCount) return false;
      Object.assign(analysis, { status: 'completed', completedAt });
      await this.events.append(
        tx,
        tenantOf(analysis),
        'analysis.completed',
        analysisCompletedData(analysis, outcome.results, sequence),
        requestId,
      );
      this.logger.log(
        { analysisId: toPublicId('analysis', analysis.id), requestId },
        'analysis completed',
      );
      return true;
    });
  }

  private async fail(
    analysis: AnalysisEntity,
    outcome: FailedAnalysisOutcome,
    requestId: string | null,
  ): Promise<void> {
    await this.transition(analysis, async (tx, sequence) => {
      const failedAt = new Date();
      const updated = await tx.query(
        `UPDATE analyses SET status = 'failed', failure_reason = $2, failure_message = $3,
                completed_at = $4, engine_seed = $5, event_sequence = $6, updated_at = now()
          WHERE id = $1 AND status IN ('queued', 'processing')`,
        [analysis.id, outcome.reason, outcome.message, failedAt, outcome.seed, sequence],
      );
      if (!updated.rowCount) return false;
      Object.assign(analysis, { status: 'failed', completedAt: failedAt });
      await this.events.append(
        tx,
        tenantOf(analysis),
        'analysis.failed',
        analysisFailedData(analysis, outcome.reason, outcome.message, sequence),
        requestId,
      );
      this.logger.log(
        { analysisId: toPublicId('analysis', analysis.id), reason: outcome.reason, requestId },
        'analysis failed',
      );
      return true;
    });
  }

  /** Runs a state change in a transaction that holds the analysis row, with its next event sequence. */
  private transition(
    analysis: AnalysisEntity,
    change: (tx: Transaction, sequence: number) => Promise<boolean>,
  ): Promise<boolean> {
    return sequencedTransition(this.sql, 'analyses', analysis.id, change);
  }
}

function tenantOf(analysis: AnalysisEntity): Tenant {
  return { organizationId: analysis.organizationId, mode: analysis.mode };
}
