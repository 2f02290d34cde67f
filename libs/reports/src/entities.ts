import { ReportEntity } from './report.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const REPORT_ENTITIES: (new () => object)[] = [ReportEntity];
