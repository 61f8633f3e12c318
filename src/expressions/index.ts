// Public API of the expressions module: the only place that uses @marcbachmann/cel-js (DESIGN §2, §5).
export type {
  CheckResult,
  ExpressionContext,
  ExpressionDefinition,
  ExpressionField,
  ExpressionModel,
  JsonValue,
  Scope,
} from './types.ts';
export { ALL_SCOPES, isScope, REQUEST_KNOWN_VARIABLES, SCOPES, type ScopeSpec, type VariableKind } from './scopes.ts';
export * from './limits.ts';
export {
  definitionKey,
  ExpressionSetupError,
  getScopeEnvironment,
  type DefinitionTypes,
  type ScopeEnvironment,
} from './environment.ts';
export type { FieldInfo, ModelInfo, ValueKind } from './model-types.ts';
export { fieldInfo, typeNameFor } from './model-types.ts';
export {
  checkExpression,
  clearProgramCache,
  compile,
  configureProgramCache,
  programCacheSize,
  type CompiledExpression,
  type CompileResult,
} from './compile.ts';
export {
  evaluate,
  evaluateRaw,
  type EvaluateOptions,
  type EvaluationErrorCode,
  type EvaluationResult,
  type RawEvaluationResult,
} from './evaluate.ts';
export { BudgetExceededError, type BudgetErrorCode, type BudgetOptions } from './budget.ts';
export { checkBudget, ExpressionBudgetError, isBudgetCode } from './budget-check.ts';
export { toJson } from './serialize.ts';
export {
  childGroups,
  freeVariables,
  functionNames,
  measure,
  recordFieldReferences,
  variableUse,
  walk,
  type ASTNode,
  type VariableUse,
  type Visitor,
  type WalkInfo,
} from './walk.ts';
export type { CompareOp, Residual, ResidualOperand, ResidualValue } from './residual.ts';
export { checkTranslatable, nodeText } from './translate.ts';
export { partialEvaluate, type KnownValues, type PartialOptions, type PartialResult } from './partial.ts';
export { LruCache } from './cache.ts';
