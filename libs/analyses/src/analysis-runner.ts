import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import type { JsonObject } from '#database';
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
import { WorkRunner } from '#work';
import { AnalysesRepository } from './analyses.repository.js';
import { requestOf } from './analysis-request.js';
import {
  analysisCompletedData,
  analysisFailedData,
  analysisProgressData,
  analysisStartedData,
} from './analysis-events.js';
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
 * the assessment), persisting and announcing each. Its steps are guarded
 * (WorkRunner), so a job that runs again resumes at the step where the last
 * one stopped, and a cancelled or deleted analysis stops at its next step.
 */
@Injectable()
export class AnalysisRunner extends WorkRunner<AnalysisEntity> {
  constructor(
    private readonly analyses: AnalysesRepository,
    events: EventLog,
    private readonly organizations: OrganizationsService,
    private readonly engines: EngineRegistry,
    settings: AppSettings,
    private readonly reader: ReferenceMaterialReader,
    private readonly earlier: EarlierWorkFinder,
    private readonly verified: VerifiedRecords,
  ) {
    super('analysis', analyses, events, settings);
  }

  async run(analysisId: string, requestId: string | null, signal?: AbortSignal): Promise<void> {
    const analysis = await this.analyses.findAcrossTenants(analysisId);
    // People do analyst analyses (AnalystAnalyses).
    if (!this.runsHere(analysis)) return;
    const orgSeed = await this.organizations.engineSeed(analysis.organizationId);
    // The engine the analysis was created for, whatever the deployment would pick today.
    const engine = this.engines.analysis(analysis.engine);
    const plan = engine.plan(requestOf(analysis), orgSeed);
    if (analysis.status === 'queued' && !(await this.start(analysis, plan, requestId))) return;

    const steps = analysis.steps ?? plan.steps;
    for (let index = analysis.stepsDone; index < steps.length; index += 1) {
      await this.pace(plan.stepMultiplier, signal);
      if (index === steps.length - 1) {
        await this.finish(analysis, engine, orgSeed, requestId);
        return;
      }
      const gathered = await this.gather(analysis, steps[index]!, plan, signal);
      if (!(await this.advance(analysis, index + 1, gathered, requestId))) return;
    }
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
    return this.guardedStep(
      analysis,
      (tx, tenant, sequence, startedAt) =>
        this.analyses.start(tx, tenant, analysis.id, {
          startedAt,
          steps: plan.steps,
          engineVersion: plan.engineVersion,
          sequence,
        }),
      async (tx, sequence, startedAt) => {
        Object.assign(analysis, {
          status: 'processing',
          startedAt,
          steps: [...plan.steps],
          engineVersion: plan.engineVersion,
          eventSequence: sequence,
        });
        await this.announce(
          tx,
          analysis,
          'analysis.started',
          analysisStartedData(analysis, sequence),
          requestId,
        );
      },
    );
  }

  private async advance(
    analysis: AnalysisEntity,
    stepsDone: number,
    gathered: Gathered,
    requestId: string | null,
  ): Promise<boolean> {
    return this.guardedStep(
      analysis,
      (tx, tenant, sequence) =>
        this.analyses.advance(tx, tenant, analysis.id, {
          stepsDone,
          sequence,
          material: gathered.material ?? null,
          earlierWork: gathered.earlierWork ?? null,
        }),
      async (tx, sequence) => {
        Object.assign(analysis, { stepsDone, eventSequence: sequence });
        if (gathered.material) analysis.material = gathered.material;
        if (gathered.earlierWork) analysis.earlierWork = gathered.earlierWork as JsonObject[];
        await this.announce(
          tx,
          analysis,
          'analysis.progress_updated',
          analysisProgressData(analysis, sequence),
          requestId,
        );
      },
    );
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
    const verified = await this.verified.of(this.tenantOf(analysis), {
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
    await this.guardedStep(
      analysis,
      (tx, tenant, sequence, completedAt) =>
        this.analyses.complete(tx, tenant, analysis.id, {
          stepsDone: analysis.steps?.length ?? 0,
          completedAt,
          results: outcome.results,
          scoreDetails: outcome.details,
          evidence: outcome.evidence,
          engineSeed: outcome.seed,
          sequence,
        }),
      async (tx, sequence, completedAt) => {
        Object.assign(analysis, { status: 'completed', completedAt });
        await this.announce(
          tx,
          analysis,
          'analysis.completed',
          analysisCompletedData(analysis, outcome.results, sequence),
          requestId,
        );
        this.logEnded(analysis, { status: 'completed' }, requestId);
      },
    );
  }

  private async fail(
    analysis: AnalysisEntity,
    outcome: FailedAnalysisOutcome,
    requestId: string | null,
  ): Promise<void> {
    await this.guardedStep(
      analysis,
      (tx, tenant, sequence, failedAt) =>
        this.analyses.markFailed(
          tx,
          tenant,
          analysis.id,
          { reason: outcome.reason, message: outcome.message, failedAt, sequence },
          { onlyRunning: true, engineSeed: outcome.seed },
        ),
      async (tx, sequence, failedAt) => {
        Object.assign(analysis, { status: 'failed', completedAt: failedAt });
        await this.announce(
          tx,
          analysis,
          'analysis.failed',
          analysisFailedData(analysis, outcome.reason, outcome.message, sequence),
          requestId,
        );
        this.logEnded(analysis, { status: 'failed', reason: outcome.reason }, requestId);
      },
    );
  }
}
