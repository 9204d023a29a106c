export {
  describeOrigin,
  type Level,
  type Requirement,
  requirements,
  type StateTable,
  tables,
} from './requirements.js';
