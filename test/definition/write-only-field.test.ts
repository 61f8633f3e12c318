// The `writeOnly` member of a field through the definition edits: set and removed by
// updateField, kept by createField, and validated (never on a relationship).
import { describe, expect, it } from 'vitest';
import { createField, updateField } from '../../src/definition/edits/index.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import type { Problem } from '../../src/errors.ts';
import { todo } from './fixtures/index.ts';

const TODO = 'urn:svc:model:todo';
const field = (def: ReturnType<typeof todo>, id: string) => def.models.find((m) => m.id === TODO)!.fields.find((f) => f.id === id)!;

describe('write-only fields in definition edits', () => {
  it('updateField sets and removes writeOnly; createField keeps it', () => {
    const on = updateField(todo(), TODO, 'urn:svc:edge:todo-description', { writeOnly: true });
    expect(field(on, 'urn:svc:edge:todo-description').writeOnly).toBe(true);
    expect(() => validateDefinition(structuredClone(on))).not.toThrow();
    const off = updateField(on, TODO, 'urn:svc:edge:todo-description', { writeOnly: false });
    expect('writeOnly' in field(off, 'urn:svc:edge:todo-description')).toBe(false);
    const created = createField(todo(), TODO, { name: 'apiKey', to: 'p_TEXT', writeOnly: true });
    expect(created.models.find((m) => m.id === TODO)!.fields.find((f) => f.name === 'apiKey')).toMatchObject({ writeOnly: true, to: 'p_TEXT' });
  });

  it('refuses a write-only relationship, naming it', () => {
    const def = todo();
    const user = def.models.find((m) => m.id === TODO)!.fields.find((f) => f.name === 'user')!;
    user.writeOnly = true;
    let problem: Problem | undefined;
    try {
      validateDefinition(def);
    } catch (error) {
      problem = error as Problem;
    }
    expect(problem?.errors).toContainEqual(expect.objectContaining({ path: expect.stringMatching(/\/fields\/\d+\/writeOnly$/), message: 'A relationship field cannot be write-only.' }));
  });
});
