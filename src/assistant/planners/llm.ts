/**
 * The LLM planner (DESIGN §15): any OpenAI-compatible chat-completions endpoint, asked to
 * call one tool whose parameters are the operation schema. Its operations are checked like
 * the built-in planner's (shape here, then the dry run). Timeouts, provider errors,
 * malformed tool calls and refusals become the assistant's reply, never an error.
 *
 * The request goes through the outbound guard of http.request; the provider's host is
 * operator configuration, so it is allowed explicitly (a local gateway may be private).
 */
import { Type } from '@sinclair/typebox';
import type { AppDefinition } from '../../definition/schema.ts';
import { guardedRequest } from '../../runtime/actions/http/client.ts';
import { OperationListSchema, operationShapeErrors, type Operation } from '../operations.ts';
import { clip, MAX_MESSAGE_LENGTH, type Plan } from '../proposals.ts';
import type { Planner } from './planner.ts';

export interface LlmOptions {
  /** Base URL (`…/v1`) or the full `…/chat/completions` URL. */
  url: string;
  model: string;
  key: string;
  timeoutMs: number;
}

export const TOOL_NAME = 'propose_operations';

/** JSON Schema of the tool's arguments (TypeBox's own symbols dropped). */
const TOOL_PARAMETERS = JSON.parse(
  JSON.stringify(Type.Object({ summary: Type.String({ description: 'One or two sentences saying what the operations do.' }), operations: OperationListSchema })),
) as Record<string, unknown>;

const SYSTEM = [
  'You change application definitions of appbuilder. Answer only by calling the tool',
  `${TOOL_NAME} with typed editing operations; never invent ids of existing things, use the ids listed below.`,
  'If the request is not a change of this application, or asks to destroy it wholesale, do not call the tool; say why.',
].join(' ');

/** What the model needs to know of the definition: ids and names, not the whole document. */
function outline(def: AppDefinition): string {
  const models = def.models.map(
    (m) => `- model ${m.name} (${m.id}): ${m.fields.map((f) => `${f.name} ${f.to}${f.min >= 1 ? ' required' : ''}${f.max === null ? ' list' : ''} (${f.id})`).join(', ')}`,
  );
  return [
    `userModelId: ${def.userModelId}`,
    ...models,
    `actions: ${def.actions.map((a) => a.id).join(', ') || 'none'}`,
    `triggers: ${def.triggers.map((t) => t.trigger.id).join(', ') || 'none'}`,
  ].join('\n');
}

/** The model's own words are shown to the builder, cut to a message's length. */
function reply(text: string, warnings: string[] = []): Plan {
  return { operations: [], understood: [], notUnderstood: [], warnings, reply: clip(text, MAX_MESSAGE_LENGTH) };
}

interface ChatMessage {
  content?: string | null;
  refusal?: string | null;
  tool_calls?: Array<{ type?: string; function?: { name?: string; arguments?: string } }>;
}

export class LlmPlanner implements Planner {
  readonly name = 'llm';
  private readonly endpoint: string;

  constructor(private readonly options: LlmOptions) {
    const base = options.url.replace(/\/+$/, '');
    this.endpoint = /\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`;
  }

  async plan(request: { text: string; definition: AppDefinition }): Promise<Plan> {
    const body = {
      model: this.options.model,
      messages: [
        { role: 'system', content: `${SYSTEM}\n\nThe application:\n${outline(request.definition)}` },
        { role: 'user', content: request.text },
      ],
      tools: [{ type: 'function', function: { name: TOOL_NAME, description: 'Propose changes of the application.', parameters: TOOL_PARAMETERS } }],
      tool_choice: 'auto',
    };
    let response;
    try {
      response = await guardedRequest({
        method: 'POST',
        url: this.endpoint,
        headers: { authorization: `Bearer ${this.options.key}` },
        body,
        timeoutMs: this.options.timeoutMs,
        allow: [new URL(this.endpoint).hostname],
        hops: 0,
        signal: new AbortController().signal,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const timedOut = /timed out/i.test(message);
      return reply(timedOut ? `The assistant's model did not answer within ${Math.round(this.options.timeoutMs / 1000)} s; nothing was changed. Try again.` : `The assistant's model could not be reached (${message}); nothing was changed.`);
    }
    if (response.status !== 200) return reply(`The assistant's model answered with status ${response.status}; nothing was changed.`);
    const message = (response.body as { choices?: Array<{ message?: ChatMessage }> } | null)?.choices?.[0]?.message;
    if (!message) return reply("The assistant's model gave no answer; nothing was changed.");
    if (message.refusal) return reply(`The assistant declined: ${message.refusal}`);
    const call = message.tool_calls?.find((c) => c.function?.name === TOOL_NAME);
    if (!call) return reply(message.content?.trim() || "The assistant's model proposed no change.");
    return this.fromArguments(call.function?.arguments);
  }

  private fromArguments(text: string | undefined): Plan {
    let args: { summary?: unknown; operations?: unknown };
    try {
      args = JSON.parse(text ?? '') as typeof args;
    } catch {
      return reply("The assistant's model answered with a malformed tool call (its arguments are not JSON); nothing was changed.");
    }
    const errors = operationShapeErrors(args?.operations);
    if (errors.length > 0) {
      return reply(
        "The assistant's model proposed operations that are not well-formed; nothing was changed.",
        errors.map((e) => `${e.path}: ${e.message}`),
      );
    }
    const operations = args.operations as Operation[];
    const summary = typeof args.summary === 'string' && args.summary.trim() ? args.summary.trim().slice(0, 1000) : `${operations.length} operation(s).`;
    return { operations, understood: operations.length ? [summary] : [], notUnderstood: [], warnings: [], ...(operations.length ? {} : { reply: summary }) };
  }
}
