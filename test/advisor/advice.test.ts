// Publish advice: each code produced by a definition made for it, none on the shipped examples,
// and the index an owner comparison with auth.id needs planned without being asked.
import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { planSchema } from '../../src/compiler/schema/plan.ts';
import { adviceFor } from '../../src/advisor/advice.ts';
import { loadExample, todoScode } from '../support/examples.ts';

type Scode = { models: Array<{ id: string; name: string; fields: Array<Record<string, unknown>>; accessControl: unknown }> };

const APP = '00000000-0000-4000-8000-000000000002';
const adviceOf = (scode: unknown) => adviceFor(compileApp(APP, '1.0.0', scode as AppDefinition));
const codes = (scode: unknown) => adviceOf(scode).map((a) => `${a.code}${a.model ? ` ${a.model}` : ''}`);
const rules = (...criteria: string[]) => ({ rules: criteria.map((c) => ({ access: 'allow', criteria: c })), defaultAccess: 'deny' });
const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({ id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra });

function todo(): Scode {
  return todoScode() as unknown as Scode;
}
const model = (scode: Scode, name: string) => scode.models.find((m) => m.name === name)!;

describe('publish advice', () => {
  it.each(['todo', 'crm', 'library', 'inventory'])('says nothing about the %s example', (name) => {
    expect(adviceOf(loadExample(name).scode)).toEqual([]);
  });

  it('no-end-user-access: every rule closed to end users', () => {
    const scode = todo();
    for (const m of scode.models) m.accessControl = rules('false');
    expect(codes(scode)).toEqual(['no-end-user-access']);
  });

  it('public-write: anonymous callers may write', () => {
    const scode = todo();
    model(scode, 'ToDo').accessControl = rules('true');
    expect(codes(scode)).toEqual(['public-write ToDo']);
    expect(adviceOf(scode)[0].message).toContain('create, update, delete');
  });

  it('unreachable-model: one model only administrators reach', () => {
    const scode = todo();
    scode.models.push({ id: 'urn:svc:model:audit', name: 'AuditEntry', fields: [field('urn:svc:edge:audit-note', 'note', 'p_TEXT')], accessControl: rules() });
    expect(codes(scode)).toEqual(['unreachable-model AuditEntry']);
  });

  it('plaintext-secret-field: a readable apiKey, not one hidden by a field rule or write-only', () => {
    const scode = todo();
    const user = model(scode, 'User');
    user.fields.push(field('urn:svc:edge:user-api-key', 'apiKey', 'p_TEXT'));
    expect(codes(scode)).toEqual(['plaintext-secret-field User']);
    user.fields[user.fields.length - 1].accessControl = { rules: [], defaultAccess: 'deny' };
    expect(codes(scode)).toEqual([]);
    user.fields[user.fields.length - 1] = { ...field('urn:svc:edge:user-api-key', 'apiKey', 'p_TEXT'), writeOnly: true };
    expect(codes(scode)).toEqual([]);
  });

  it('rule-needs-index: a rule on a column without an index; an owner column compared with auth.id gets one planned', () => {
    const scode = todo();
    model(scode, 'ToDo').accessControl = rules("auth != null && record.user == auth.id && record.status != 'archived'");
    expect(codes(scode)).toEqual(['rule-needs-index ToDo']);
    expect(adviceOf(scode)[0].message).toContain('status');

    const owned = todo();
    const todoModel = model(owned, 'ToDo');
    todoModel.fields.push(field('urn:svc:edge:todo-owner-id', 'ownerId', 'p_TEXT'));
    todoModel.accessControl = rules('auth != null && record.ownerId == auth.id');
    expect(codes(owned)).toEqual([]);
    const plan = planSchema(owned as unknown as AppDefinition, APP);
    const labels = plan.indexes.map((i) => i.label);
    expect(labels).toContain('ToDo.ownerId');
    expect(planSchema(todo() as unknown as AppDefinition, APP).indexes.map((i) => i.label)).not.toContain('ToDo.ownerId');
  });
});
