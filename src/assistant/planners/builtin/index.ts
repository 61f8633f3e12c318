/**
 * The built-in planner (DESIGN §15): deterministic, offline. Each sentence of the request
 * goes through the rules in order; the first that recognises it gives its operations,
 * planned against the definition as the earlier sentences leave it. What no rule
 * recognises is reported as not understood, never guessed.
 */
import { Problem } from '../../../errors.ts';
import type { AppDefinition } from '../../../definition/schema.ts';
import { applyOperations, type Operation } from '../../operations.ts';
import type { Plan } from '../../proposals.ts';
import type { Planner } from '../planner.ts';
import { Unclear, type Context, type Rule } from './context.ts';
import { sentencesOf } from './text.ts';
import { examplesFor } from './examples.ts';
import { unique } from './rules/unique.ts';
import { variable } from './rules/variables.ts';
import { afterAction, eventAction, schedule } from './rules/automation.ts';
import { access } from './rules/access.ts';
import { relationship } from './rules/relationships.ts';
import { addModel, remove, rename } from './rules/models.ts';
import { addField, defaultValue, enumValues, fieldType, manyValues, modelHasField, requiredness } from './rules/fields.ts';

/** Most specific first: a schedule or an access sentence also starts like a field one. */
const RULES: Rule[] = [
  variable,
  afterAction,
  eventAction,
  schedule,
  access,
  relationship,
  rename,
  unique,
  defaultValue,
  requiredness,
  enumValues,
  manyValues,
  fieldType,
  remove,
  addModel,
  addField,
  modelHasField,
];

/** At most this many sentences are read; the rest is reported as not read. */
const MAX_SENTENCES = 20;
/** A longer sentence is not one plain request; refusing it also bounds the rules' work. */
const MAX_SENTENCE_LENGTH = 300;

export function planText(text: string, definition: AppDefinition): Plan {
  const ctx: Context = { def: definition };
  const plan: Plan = { operations: [], understood: [], notUnderstood: [], warnings: [], examples: examplesFor(definition) };
  const sentences = sentencesOf(text);
  if (sentences.length > MAX_SENTENCES) plan.warnings.push(`Only the first ${MAX_SENTENCES} sentences were read.`);
  for (const sentence of sentences.slice(0, MAX_SENTENCES)) {
    if (sentence.length > MAX_SENTENCE_LENGTH) {
      plan.notUnderstood.push(sentence);
      plan.warnings.push(`A sentence of more than ${MAX_SENTENCE_LENGTH} characters is not read; say one change per sentence.`);
      continue;
    }
    if (planSentence(sentence, ctx, plan)) continue;
    // Several changes in one sentence: "add an email to customers and make it unique".
    const clauses = clausesOf(sentence);
    if (clauses.length > 1) {
      for (const clause of clauses) if (!planSentence(clause, ctx, plan)) plan.notUnderstood.push(clause);
    } else plan.notUnderstood.push(sentence);
  }
  return plan;
}

/** Splits before "and"/"then"/", " followed by a verb that starts a change of its own. */
function clausesOf(sentence: string): string[] {
  return sentence
    .split(/\s*(?:,\s*(?:and\s+|then\s+|also\s+)?|\s+and\s+(?:then\s+|also\s+)?|\s+then\s+|\s+also\s+)(?=(?:make|add|rename|remove|delete|drop|set|let|allow|only|anyone|everyone|send|email|notify|change|give|put|track|require|record|store|link|each|every|when|whenever)\b)/i)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

/** Plans one sentence (or clause) with the first rule that recognises it; false when none does. */
function planSentence(sentence: string, ctx: Context, plan: Plan): boolean {
  for (const rule of RULES) {
    let step;
    try {
      step = rule(sentence, ctx);
    } catch (error) {
      if (!(error instanceof Unclear)) throw error;
      plan.notUnderstood.push(sentence);
      plan.warnings.push(error.message);
      return true;
    }
    if (!step) continue;
    add(plan.operations, step.operations);
    plan.understood.push(step.understood);
    plan.warnings.push(...(step.warnings ?? []));
    if (step.model) ctx.lastModel = step.model;
    if (step.field) ctx.lastField = step.field;
    try {
      ctx.def = applyOperations(ctx.def, step.operations);
      if (step.model) ctx.lastModel = ctx.def.models.find((m) => m.id === step.model!.id) ?? ctx.lastModel;
      if (step.field && ctx.lastModel) ctx.lastField = ctx.lastModel.fields.find((f) => f.name === step.field!.name) ?? ctx.lastField;
    } catch (error) {
      // The dry run reports it; later sentences are planned against the definition before it.
      if (!(error instanceof Problem)) throw error;
    }
    return true;
  }
  return false;
}

/** Appends operations; a second access change of the same model replaces the first (its rules include them). */
function add(list: Operation[], operations: Operation[]): void {
  for (const op of operations) {
    const last = list[list.length - 1];
    if (op.op === 'setAccessRules' && last?.op === 'setAccessRules' && last.modelId === op.modelId) list[list.length - 1] = op;
    else list.push(op);
  }
}

export class BuiltinPlanner implements Planner {
  readonly name = 'builtin';
  async plan(request: { text: string; definition: AppDefinition }): Promise<Plan> {
    return planText(request.text, request.definition);
  }
}
