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
} from './adapter.js';
export { type BadInputCase, deriveBadInput } from './bad-input.js';
export {
  type ConformanceRequirement,
  catalog,
  type Profile,
  profileNames,
  profiles,
  type RequirementKind,
} from './catalog.js';
export {
  type ExpectedFailure,
  parseExpectedFailures,
  readExpectedFailures,
} from './expected-failures.js';
export {
  type Evidence,
  Failure,
  type Outcome,
  PreconditionError,
  type RecordedCall,
  SetupError,
  Skip,
} from './outcome.js';
export { consoleLine, consoleSummary } from './report/console.js';
export { curlOf } from './report/curl.js';
export { defaultDocsUrl, requirementAnchor, requirementDocsUrl } from './report/docs-link.js';
export { type HtmlOptions, toHtml } from './report/html.js';
export { toJson } from './report/json.js';
export { toJunit } from './report/junit.js';
export {
  describeOrigin,
  type Level,
  type Requirement,
  requirements,
  type StateTable,
  tables,
} from './requirements.js';
export {
  type ConformanceReport,
  CredentialsRefusedError,
  type RequirementResult,
  RunAbortedError,
  type RunOptions,
  runConformance,
  type Verdict,
} from './run.js';
export type { Target } from './target.js';
export { checkResponse, type Violation } from './validate.js';
