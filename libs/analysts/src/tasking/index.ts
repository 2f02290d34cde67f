export { TaskingModule } from './tasking.module.js';
