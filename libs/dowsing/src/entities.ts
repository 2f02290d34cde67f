import { DowsingQueryEntity } from './entities/dowsing-query.entity.js';
import { DowsingReadingEntity } from './entities/dowsing-reading.entity.js';
import { DowsingReadingTileEntity } from './entities/dowsing-reading-tile.entity.js';

/** The tables this lib owns. */
export const DOWSING_ENTITIES = [
  DowsingQueryEntity,
  DowsingReadingEntity,
  DowsingReadingTileEntity,
];
