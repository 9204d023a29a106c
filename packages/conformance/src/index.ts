export {
  type AdapterContext,
  type ConformanceAdapter,
  defaultAdapter,
  type Market,
  type OAuthRequestView,
  type OrderFixture,
  type OrderRef,
  type ProductInfo,
  type TradingType,
} from './engine/adapter.js';
export { type BadInputCase, deriveBadInput } from './engine/bad-input.js';
export {
  type ConformanceRequirement,
  catalog,
  type Profile,
  profileNames,
  profiles,
  type RequirementKind,
} from './engine/catalog.js';
export {
  type ExpectedFailure,
  parseExpectedFailures,
  readExpectedFailures,
} from './engine/expected-failures.js';
export {
  type Evidence,
  Failure,
  type Outcome,
  PreconditionError,
  type RecordedCall,
  SetupError,
  Skip,
} from './engine/outcome.js';
export {
  describeOrigin,
  type Level,
  type Requirement,
  requirements,
  type StateTable,
  tables,
} from './engine/requirements.js';
export {
  type ConformanceReport,
  CredentialsRefusedError,
  type RequirementResult,
  RunAbortedError,
  type RunOptions,
  runConformance,
  type Verdict,
} from './engine/run.js';
export type { Target } from './engine/target.js';
export { checkResponse, type Violation } from './engine/validate.js';
export { consoleLine, consoleSummary } from './reports/console.js';
export { curlOf } from './reports/curl.js';
export { defaultDocsUrl, requirementAnchor, requirementDocsUrl } from './reports/docs-link.js';
export { type HtmlOptions, toHtml } from './reports/html.js';
export { toJson } from './reports/json.js';
export { toJunit } from './reports/junit.js';
