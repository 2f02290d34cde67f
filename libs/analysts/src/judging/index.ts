export { JudgingModule } from './judging.module.js';
