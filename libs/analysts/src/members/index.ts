export { MembersModule } from './members.module.js';
