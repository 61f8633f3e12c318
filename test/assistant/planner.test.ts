import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { planText } from '../../src/assistant/planners/builtin/index.ts';
import { loadExample } from '../support/examples.ts';

const todo = () => loadExample('todo').scode as unknown as AppDefinition;
const library = () => loadExample('library').scode as unknown as AppDefinition;

describe('built-in planner', () => {
  it.each(['to-dos', 'todos', 'To Dos', 'ToDo', 'the to-do model', 'todo items'])('resolves "%s" to the ToDo model', (phrase) => {
    const plan = planText(`Add a priority to ${phrase}`, todo());
    expect(plan.operations).toEqual([{ op: 'addField', modelId: 'urn:svc:model:todo', field: { name: 'priority', to: 'p_TEXT' } }]);
  });

  it('plans later sentences against the definition the earlier ones leave ("them", a model added before)', () => {
    const plan = planText('Add a Shelf model with a label. Each book belongs to a shelf. Anyone can read them.', library());
    expect(plan.operations.map((o) => o.op)).toEqual(['addModel', 'addField', 'setAccessRules']);
    expect(plan.operations[1]).toMatchObject({ modelId: 'urn:svc:model:book', field: { to: 'urn:svc:model:shelf', partner: { name: 'books' } } });
    expect(plan.operations[2]).toMatchObject({ modelId: 'urn:svc:model:book' });
    expect(plan.notUnderstood).toEqual([]);
  });

  it('says what it did not understand, and why when it recognised the request', () => {
    const plan = planText('Add a priority to to-dos. Make the colour of invoices required. Sing a song.', todo());
    expect(plan.operations).toHaveLength(1);
    expect(plan.notUnderstood).toEqual(['Make the colour of invoices required', 'Sing a song']);
    expect(plan.warnings.join(' ')).toMatch(/no field "the colour of invoices"/);
  });

  it('does not read a sentence longer than 300 characters, nor more than 20 sentences', () => {
    const long = planText(`Add a priority to ${'very '.repeat(80)}to-dos`, todo());
    expect(long.operations).toEqual([]);
    expect(long.warnings.join(' ')).toMatch(/more than 300 characters/);
    const many = planText(Array.from({ length: 25 }, (_, i) => `Add a field${i} to to-dos.`).join(' '), todo());
    expect(many.operations).toHaveLength(20);
    expect(many.warnings).toContain('Only the first 20 sentences were read.');
  });

  it('adds the role field a role rule needs when the user model has none, and says so (DESIGN §15)', () => {
    const plan = planText('Only admins can change to-dos', todo());
    expect(plan.operations.map((o) => o.op)).toEqual(['addField', 'setAccessRules']);
    expect(plan.operations[0]).toMatchObject({ op: 'addField', modelId: 'urn:svc:model:user', field: { name: 'role', enum: ['member', 'admin'], defaultValue: 'member' } });
    expect(JSON.stringify(plan.operations[1])).toContain("auth.role != 'admin'");
    expect(plan.warnings.join(' ')).toMatch(/no role: a field role/);
  });
});
