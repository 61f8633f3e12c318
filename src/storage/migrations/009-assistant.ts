import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * AI assistant messages (DESIGN §15): the conversation of a project about one of its
 * applications, both roles in order (ids are uuid v7, so `id` orders them). An assistant
 * reply carries its proposal (jsonb). A project's or an application's deletion removes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.assistant_messages (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      role text not null check (role in ('user', 'assistant')),
      in_reply_to uuid references appbuilder.assistant_messages(id) on delete cascade,
      content text not null,
      proposal jsonb,
      created_at timestamptz not null default now()
    );
    create index assistant_messages_conversation_idx on appbuilder.assistant_messages (project_id, application_id, id);
    create index assistant_messages_reply_idx on appbuilder.assistant_messages (in_reply_to)
`;
