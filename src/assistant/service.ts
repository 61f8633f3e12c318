/**
 * The assistant's conversation per project (DESIGN §15): a user message about one
 * application, the assistant's reply with a dry-run-checked proposal, and the apply that
 * makes all of a proposal's operations one change and one version.
 */
import type { ColumnType, Kysely, Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import { badRequest, conflict, notFound, Problem, type ProblemDetail } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { AppDefinition } from '../definition/schema.ts';
import type { Actor } from '../access/roles.ts';
import type { ApplicationService } from '../services/applications/service.ts';
import type { Application } from '../services/applications/view.ts';
import type { Page } from '../services/projects.ts';
import { applyOperations, type Operation } from './operations.ts';
import { clip, dryRun, MAX_MESSAGE_LENGTH, replyText, type Plan, type Proposal } from './proposals.ts';
import type { Planner } from './planners/planner.ts';


interface AssistantMessagesTable {
  id: string;
  customer_id: string;
  project_id: string;
  application_id: string;
  role: 'user' | 'assistant';
  in_reply_to: string | null;
  content: string;
  proposal: ColumnType<Proposal | null, string | null, string | null>;
  created_at: ColumnType<Date, Date | string, Date | string>;
}
type Tables = ControlPlane & { 'appbuilder.assistant_messages': AssistantMessagesTable };

export interface AssistantMessage {
  id: string;
  projectId: string;
  applicationId: string;
  role: 'user' | 'assistant';
  inReplyTo: string | null;
  content: string;
  proposal: Proposal | null;
  createdAt: string;
}

function toMessage(row: Selectable<AssistantMessagesTable>): AssistantMessage {
  return {
    id: row.id,
    projectId: row.project_id,
    applicationId: row.application_id,
    role: row.role,
    inReplyTo: row.in_reply_to,
    content: row.content,
    proposal: row.proposal,
    createdAt: toIso(row.created_at)!,
  };
}

/** Writes an application's variables (services/configuration.ts), joining the apply's transaction. */
export interface VariableWriter {
  put(
    customerId: string,
    owner: { kind: 'application'; id: string },
    kind: 'variable',
    name: string,
    value: string,
    actor: Actor,
    within?: Kysely<ControlPlane>,
  ): Promise<unknown>;
}

export class AssistantService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly planner: Planner,
    private readonly variables: VariableWriter | null = null,
  ) {}

  private get kysely(): Kysely<Tables> {
    return this.db.kysely.withTables<{ 'appbuilder.assistant_messages': AssistantMessagesTable }>();
  }

  /** Stores the user's message, plans, dry-runs and stores the reply; never applies anything. */
  async post(customerId: string, projectId: string, input: { content: string; applicationId: string }): Promise<AssistantMessage> {
    const text = input.content.trim();
    if (text === '') throw badRequest('The message is empty: say what to change.', [{ path: '/content', message: 'Must not be empty or only spaces' }]);
    if (text.length > MAX_MESSAGE_LENGTH) {
      throw badRequest(`The message is longer than ${MAX_MESSAGE_LENGTH} characters.`, [
        { path: '/content', message: `At most ${MAX_MESSAGE_LENGTH} characters` },
      ]);
    }
    const row = await this.applicationOf(customerId, projectId, input.applicationId);
    const receivedAt = Date.now();
    const definition = row.scode as unknown as AppDefinition;
    const plan = await this.safePlan(text, definition, input.applicationId);
    const proposal = dryRun(definition, row.server_version, plan, (ops) => this.checkOutside(ops));
    const userId = uuidv7(receivedAt);
    // Ids are time-ordered: the reply's id is later than the request's even within one millisecond.
    const repliedAt = Math.max(Date.now(), receivedAt + 1);
    const replyId = uuidv7(repliedAt);
    const common = { customer_id: customerId, project_id: projectId, application_id: input.applicationId };
    await this.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('appbuilder.assistant_messages')
        .values({ ...common, id: userId, role: 'user', in_reply_to: null, content: input.content, proposal: null, created_at: new Date(receivedAt) })
        .execute();
      await trx
        .insertInto('appbuilder.assistant_messages')
        .values({
          ...common,
          id: replyId,
          role: 'assistant',
          in_reply_to: userId,
          content: replyText(proposal, plan),
          proposal: jsonb(proposal),
          created_at: new Date(repliedAt),
        })
        .execute();
    });
    return this.get(customerId, projectId, replyId);
  }

  /** Both roles in order, optionally of one application. */
  async list(customerId: string, projectId: string, applicationId: string | undefined, limit: number, offset: number): Promise<Page<AssistantMessage>> {
    await this.projectOf(customerId, projectId);
    let base = this.kysely.selectFrom('appbuilder.assistant_messages').where('project_id', '=', projectId).where('customer_id', '=', customerId);
    if (applicationId) base = base.where('application_id', '=', applicationId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toMessage), total: Number(count.total) };
  }

  async get(customerId: string, projectId: string, messageId: string): Promise<AssistantMessage> {
    return toMessage(await this.messageRow(this.kysely, customerId, projectId, messageId));
  }

  /**
   * All operations as one change and one version. 409 when the proposal is not `proposed`
   * or the application moved past its base version; the message is marked applied in the
   * same transaction, so a proposal is applied at most once. Its variables are set in that
   * transaction too: a refused one (a secret of that name: 409) undoes the whole change.
   */
  async apply(customerId: string, projectId: string, messageId: string, actor: Actor): Promise<Application> {
    const message = await this.messageRow(this.kysely, customerId, projectId, messageId);
    const proposal = applicable(message);
    return this.applications.change(customerId, message.application_id, (def) => applyOperations(def, proposal.operations), {
      expectVersion: proposal.baseVersion,
      beforeCommit: async (trx, versions) => {
        const tables = trx.withTables<{ 'appbuilder.assistant_messages': AssistantMessagesTable }>();
        const locked = await this.messageRow(tables, customerId, projectId, messageId, true);
        applicable(locked);
        for (const op of proposal.operations) {
          // Variables live beside the definition: written by their own service in this transaction.
          if (op.op === 'setVariable') await this.variables!.put(customerId, { kind: 'application', id: message.application_id }, 'variable', op.name, op.value, actor, trx);
        }
        const applied: Proposal = { ...proposal, status: 'applied', appliedVersion: versions.next };
        await tables.updateTable('appbuilder.assistant_messages').set({ proposal: jsonb(applied) }).where('id', '=', messageId).execute();
      },
    });
  }

  /** Marks the proposal discarded; an applied one cannot be (409). */
  async discard(customerId: string, projectId: string, messageId: string): Promise<AssistantMessage> {
    await this.kysely.transaction().execute(async (trx) => {
      const row = await this.messageRow(trx, customerId, projectId, messageId, true);
      if (row.proposal?.status === 'applied') {
        throw conflict('The proposal was applied; it cannot be discarded.', [{ path: '/proposal/status', message: 'Is applied' }]);
      }
      const discarded: Proposal = { ...row.proposal!, status: 'discarded' };
      await trx.updateTable('appbuilder.assistant_messages').set({ proposal: jsonb(discarded) }).where('id', '=', messageId).execute();
    });
    return this.get(customerId, projectId, messageId);
  }

  /** A planner failure of any kind is a reply, never a 500. */
  private async safePlan(text: string, definition: AppDefinition, applicationId: string): Promise<Plan> {
    try {
      return await this.planner.plan({ text, definition, applicationId });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { operations: [], understood: [], notUnderstood: [], warnings: [], reply: `The assistant could not plan this request: ${clip(reason)}` };
    }
  }

  private checkOutside(operations: readonly Operation[]): ProblemDetail[] {
    if (this.variables) return [];
    return operations.flatMap((op, i) =>
      op.op === 'setVariable' ? [{ path: `/operations/${i}`, message: 'Variables are not available in this installation yet.' }] : [],
    );
  }

  private async projectOf(customerId: string, projectId: string): Promise<void> {
    const project = await this.kysely
      .selectFrom('appbuilder.projects')
      .select('id')
      .where('id', '=', projectId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!project) throw notFound(`Project ${projectId} was not found.`, '/projectId');
  }

  /** The caller's application inside this project; anything else is "not found". */
  private async applicationOf(customerId: string, projectId: string, applicationId: string) {
    await this.projectOf(customerId, projectId);
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId).catch((error: unknown) => {
      if (error instanceof Problem && error.status === 404) throw notFound(`Application ${applicationId} was not found in this project.`, '/applicationId');
      throw error;
    });
    if (row.project_id !== projectId) throw notFound(`Application ${applicationId} was not found in this project.`, '/applicationId');
    return row;
  }

  private async messageRow(executor: Kysely<Tables>, customerId: string, projectId: string, messageId: string, lock = false) {
    let query = executor
      .selectFrom('appbuilder.assistant_messages')
      .selectAll()
      .where('id', '=', messageId)
      .where('project_id', '=', projectId)
      .where('customer_id', '=', customerId)
      .where('role', '=', 'assistant');
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw notFound(`Assistant message ${messageId} was not found in this project.`, '/messageId');
    return row;
  }
}

/** The proposal of a reply when it can be applied; else 409 naming its status. */
function applicable(row: Selectable<AssistantMessagesTable>): Proposal {
  const proposal = row.proposal;
  if (!proposal || proposal.status !== 'proposed') {
    const status = proposal?.status ?? 'none';
    throw conflict(`The proposal is ${status}, not proposed; only a proposed change can be applied.`, [
      { path: '/proposal/status', message: `Is ${status}` },
    ]);
  }
  return proposal;
}
