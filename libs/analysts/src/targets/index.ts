export * from './target.js';
export { checkNewTarget, normaliseDescriptors } from './target-input.js';
export { readTargetPhoto } from './target-photo-reading.js';
export { TargetPool } from './target-pool.js';
export { TargetsService } from './targets.service.js';
export { TargetPoolModule } from './targets.module.js';
export { TargetEntity } from './target.entity.js';
export { TargetPhotoEntity } from './target-photo.entity.js';
