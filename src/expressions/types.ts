// Public types shared by the expressions module. Inputs are minimal structural shapes so the
// module never imports from other folders (definition, runtime, ...).

/** A field of a model, as much as expressions need: `to` is a primitive (`p_TEXT`, ...) or a model id. */
export interface ExpressionField {
  id: string;
  name: string;
  to: string;
  max: number | null;
}

export interface ExpressionModel {
  id: string;
  name: string;
  fields: readonly ExpressionField[];
}

/**
 * The part of an application definition that typing depends on.
 * `versionKey` identifies this exact model set (e.g. `${applicationId}@${serverVersion}`); when it
 * is absent a content hash is used. Two different model sets must never share a versionKey,
 * because environments and compiled programs are cached by it.
 */
export interface ExpressionDefinition {
  models: readonly ExpressionModel[];
  userModelId: string | null;
  versionKey?: string;
}

/** Where an expression is used; decides which variables exist and the expected result type. */
export type Scope =
  | 'rule'
  | 'filter'
  | 'computed'
  | 'validation'
  | 'matchSelector'
  | 'initialState'
  | 'effect'
  | 'returnValue'
  /** A field's `defaultValue` expression, evaluated when a record is created (DESIGN §4). */
  | 'default';

export interface ExpressionContext {
  definition: ExpressionDefinition;
  scope: Scope;
  /** Required for `rule`, `filter` and `computed` (the type of `record`). */
  modelId?: string | null;
}

export type CheckResult = { ok: true; type: string } | { ok: false; message: string; position?: number };

/** A JSON-safe value (what `evaluate` returns). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
