import { DowsingQueryEntity } from './entities/dowsing-query.entity.js';
import { DowsingReadingEntity } from './entities/dowsing-reading.entity.js';

/** The tables this lib owns. */
export const DOWSING_ENTITIES = [DowsingQueryEntity, DowsingReadingEntity];
