/**
 * Proposals (DESIGN §15): a planner's operations checked by a dry run before they are shown.
 * The dry run applies every operation through the management API's edits to a copy of the
 * definition and validates the result (shape, then consistency), exactly as an apply would.
 */
import { Problem, type ProblemDetail } from '../errors.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { validateDefinition } from '../definition/validate.ts';
import { computeBump, nextVersion } from '../definition/versioning/index.ts';
import { applyOperations, type Operation } from './operations.ts';

export type ProposalStatus = 'proposed' | 'invalid' | 'unsupported' | 'applied' | 'discarded';

export interface Proposal {
  status: ProposalStatus;
  /** The application's serverVersion the operations were planned against. */
  baseVersion: string;
  operations: Operation[];
  /** The serverVersion an apply would create (null unless `proposed`). */
  predictedVersion: string | null;
  summary: string;
  warnings: string[];
  /** Why an `invalid` proposal would not validate (pointers into the definition or the operation). */
  errors: ProblemDetail[];
  /** The version an apply created. */
  appliedVersion?: string;
}

/** What a planner hands back: operations plus what it understood and did not. */
export interface Plan {
  operations: Operation[];
  /** One line per understood request, in order. */
  understood: string[];
  /** The parts of the request the planner could not turn into operations. */
  notUnderstood: string[];
  warnings: string[];
  /** A reply of the planner's own (an LLM's refusal or a provider failure). */
  reply?: string;
  /** Requests this application would understand, made from its own models (for a refusal). */
  examples?: string[];
}

/** Extra checks of the dry run that live outside the definition (variables). */
export type OperationCheck = (operations: readonly Operation[]) => ProblemDetail[];

export function dryRun(definition: AppDefinition, serverVersion: string, plan: Plan, check: OperationCheck = () => []): Proposal {
  const base = {
    baseVersion: serverVersion,
    operations: plan.operations,
    summary: summaryOf(plan),
    warnings: [...plan.warnings, ...plan.notUnderstood.map((text) => `Not understood: "${clip(text)}"`)],
  };
  if (plan.operations.length === 0) return { ...base, status: 'unsupported', predictedVersion: null, errors: [] };
  const outside = check(plan.operations);
  if (outside.length > 0) return { ...base, status: 'invalid', predictedVersion: null, errors: outside };
  try {
    const next = validateDefinition(applyOperations(structuredClone(definition), plan.operations));
    return { ...base, status: 'proposed', predictedVersion: nextVersion(serverVersion, computeBump(definition, next)), errors: [] };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const errors = error.errors.length > 0 ? error.errors : [{ path: '', message: error.message }];
    return { ...base, status: 'invalid', predictedVersion: null, errors: [{ path: '', message: error.message }, ...errors].slice(0, 50) };
  }
}

function summaryOf(plan: Plan): string {
  if (plan.understood.length > 0) return plan.understood.join(' ');
  return plan.reply ?? 'Nothing to change.';
}

/** Longest message a builder may send (longer is a 400 naming `/content`), and longest reply text. */
export const MAX_MESSAGE_LENGTH = 4000;

export const clip = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const EXAMPLES = [
  'add a priority to to-dos: low, medium or high, default medium',
  'add a Tag model with a name and a colour',
  'each to-do belongs to a project',
  'rename the description field of to-dos to notes',
  'make the deadline of to-dos required',
  'only the owner can see to-dos',
  'anyone can read books; only librarians can change them',
  'when a user signs up, create a welcome to-do',
  'every weekday at 9:00, emit the daily-digest event',
  'set the variable SUPPORT_EMAIL to help@example.com',
];

/** The assistant's answer in words: what it proposes, or what it did and did not understand. */
export function replyText(proposal: Proposal, plan: Plan): string {
  const lines: string[] = [];
  if (plan.reply) lines.push(plan.reply);
  if (proposal.status === 'proposed') {
    lines.push(`I propose ${proposal.operations.length} change(s): ${proposal.summary}`);
    lines.push(`Applying them creates version ${proposal.predictedVersion ?? '?'} in one step.`);
  } else if (proposal.status === 'invalid') {
    lines.push(`I understood: ${proposal.summary}`);
    lines.push(`But the result would not be valid, so nothing can be applied: ${proposal.errors.map((e) => `${e.path || '(definition)'}: ${e.message}`).join('; ')}`);
  } else if (!plan.reply) {
    if (plan.understood.length > 0) lines.push(`I understood: ${plan.understood.join(' ')} Nothing needs to change for that.`);
    if (plan.notUnderstood.length > 0 || plan.understood.length === 0) {
      lines.push(plan.notUnderstood.length > 0 ? `I did not understand: ${plan.notUnderstood.map((t) => `"${clip(t)}"`).join(', ')}, so I propose nothing for it.` : 'I did not understand a change I can make from that, so I propose nothing.');
      const examples = plan.examples?.length ? plan.examples : EXAMPLES;
      lines.push(`Requests I understand look like: ${examples.map((e) => `"${e}"`).join(', ')}.`);
    }
  }
  if (plan.notUnderstood.length > 0 && proposal.status !== 'unsupported') {
    lines.push(`I did not understand: ${plan.notUnderstood.map((t) => `"${clip(t)}"`).join(', ')}.`);
  }
  for (const warning of plan.warnings) lines.push(`Note: ${warning}`);
  return lines.join('\n');
}
