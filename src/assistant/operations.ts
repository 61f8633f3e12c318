/**
 * The assistant's typed editing operations (DESIGN §15). Each one is a management API edit
 * with that route's own body schema and is applied by the same function of
 * `definition/edits/` (one implementation of every edit):
 *
 * | operation      | management API                                   |
 * |----------------|--------------------------------------------------|
 * | addModel       | POST   …/models                     (`model`)    |
 * | renameModel    | PATCH  …/models/{modelId}           {name}       |
 * | removeModel    | DELETE …/models/{modelId}                        |
 * | setAccessRules | PATCH  …/models/{modelId}           {accessControl} |
 * | setIndexes     | PATCH  …/models/{modelId}           {indexes}    |
 * | addField       | POST   …/models/{modelId}/fields    (`field`)    |
 * | updateField    | PATCH  …/fields/{fieldId}           (`changes`)  |
 * | renameField    | PATCH  …/fields/{fieldId}           {name}       |
 * | removeField    | DELETE …/fields/{fieldId}                        |
 * | addAction      | POST   …/actions                    (`action`)   |
 * | insertEffects  | POST   …/actions/{actionId}/effects (`modifications`) |
 * | addTrigger     | POST   …/triggers                   (`trigger`)  |
 * | removeTrigger  | DELETE …/triggers/{triggerId}                    |
 * | setVariable    | PUT    …/variables/{name}           {value}      |
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ProblemDetail } from '../errors.ts';
import { ActionIdSchema, AccessControlSchema, FieldIdSchema, ModelIdSchema, ModelIndexSchema, TriggerIdSchema, type AppDefinition } from '../definition/schema.ts';
import {
  AddActionBody,
  CreateFieldBody,
  CreateModelBody,
  CreateTriggerBody,
  EffectModificationsBody,
  UpdateFieldBody,
  addAction,
  createField,
  createModel,
  createTrigger,
  deleteField,
  deleteModel,
  deleteTrigger,
  modifyEffects,
  updateField,
  updateModel,
} from '../definition/edits/index.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
/** Variable names as DESIGN §11 gives them. */
export const VARIABLE_NAME = '^[A-Z][A-Z0-9_]{0,63}$';

const op = <K extends string>(kind: K) => Type.Literal(kind);

export const OperationSchema = Type.Union([
  Type.Object({ op: op('addModel'), model: CreateModelBody }),
  Type.Object({ op: op('renameModel'), modelId: ModelIdSchema, name: Name }),
  Type.Object({ op: op('removeModel'), modelId: ModelIdSchema }),
  Type.Object({ op: op('setAccessRules'), modelId: ModelIdSchema, accessControl: AccessControlSchema }),
  Type.Object({ op: op('setIndexes'), modelId: ModelIdSchema, indexes: Type.Array(ModelIndexSchema, { maxItems: 64 }) }),
  Type.Object({ op: op('addField'), modelId: ModelIdSchema, field: CreateFieldBody }),
  Type.Object({ op: op('updateField'), modelId: ModelIdSchema, fieldId: FieldIdSchema, changes: UpdateFieldBody }),
  Type.Object({ op: op('renameField'), modelId: ModelIdSchema, fieldId: FieldIdSchema, name: Name }),
  Type.Object({ op: op('removeField'), modelId: ModelIdSchema, fieldId: FieldIdSchema }),
  Type.Object({ op: op('addAction'), action: AddActionBody }),
  Type.Object({ op: op('insertEffects'), actionId: ActionIdSchema, modifications: EffectModificationsBody }),
  Type.Object({ op: op('addTrigger'), trigger: CreateTriggerBody }),
  Type.Object({ op: op('removeTrigger'), triggerId: TriggerIdSchema }),
  Type.Object({ op: op('setVariable'), name: Type.String({ pattern: VARIABLE_NAME }), value: Type.String({ maxLength: 65536 }) }),
]);
export type Operation = Static<typeof OperationSchema>;
export type OperationKind = Operation['op'];

/** At most this many operations in one proposal (a request is a few sentences). */
export const MAX_OPERATIONS = 100;
export const OperationListSchema = Type.Array(OperationSchema, { maxItems: MAX_OPERATIONS });

const compiledList = TypeCompiler.Compile(OperationListSchema);

/** Shape errors of an operation list from outside (the LLM planner), as JSON pointers; empty when well-formed. */
export function operationShapeErrors(value: unknown): ProblemDetail[] {
  if (compiledList.Check(value)) return [];
  const errors: ProblemDetail[] = [];
  for (const error of compiledList.Errors(value)) {
    errors.push({ path: `/operations${error.path}`, message: error.message });
    if (errors.length >= 20) break;
  }
  return errors;
}

export function isOperationList(value: unknown): value is Operation[] {
  return compiledList.Check(value);
}

/**
 * Applies one operation to a definition through the management API's edit functions.
 * `setVariable` does not touch the definition (variables live beside it).
 */
export function applyOperation(def: AppDefinition, operation: Operation): AppDefinition {
  switch (operation.op) {
    case 'addModel':
      return createModel(def, operation.model);
    case 'renameModel':
      return updateModel(def, operation.modelId, { name: operation.name });
    case 'removeModel':
      return deleteModel(def, operation.modelId);
    case 'setAccessRules':
      return updateModel(def, operation.modelId, { accessControl: operation.accessControl });
    case 'setIndexes':
      return updateModel(def, operation.modelId, { indexes: operation.indexes });
    case 'addField':
      return createField(def, operation.modelId, operation.field);
    case 'updateField':
      return updateField(def, operation.modelId, operation.fieldId, operation.changes);
    case 'renameField':
      return updateField(def, operation.modelId, operation.fieldId, { name: operation.name });
    case 'removeField':
      return deleteField(def, operation.modelId, operation.fieldId);
    case 'addAction':
      return addAction(def, operation.action);
    case 'insertEffects':
      return modifyEffects(def, operation.actionId, operation.modifications);
    case 'addTrigger':
      return createTrigger(def, operation.trigger);
    case 'removeTrigger':
      return deleteTrigger(def, operation.triggerId);
    case 'setVariable':
      return def;
  }
}

/** All operations in order; the first that cannot be applied throws its Problem. */
export function applyOperations(def: AppDefinition, operations: readonly Operation[]): AppDefinition {
  return operations.reduce(applyOperation, def);
}
