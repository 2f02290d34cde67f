export { TargetPoolModule } from './targets.module.js';
