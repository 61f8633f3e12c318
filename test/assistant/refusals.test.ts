// A refusal (DESIGN §15) says what was understood and what was not, and gives three examples made
// from this application's own models, never another app's (the to-do app's examples on a music store).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { planText } from '../../src/assistant/planners/builtin/index.ts';
import { dryRun, replyText } from '../../src/assistant/proposals.ts';
import { EXAMPLES_DIR } from '../support/examples.ts';

const chinook = JSON.parse(readFileSync(join(EXAMPLES_DIR, '..', 'test', 'fixtures', 'assistant', 'apps', 'chinook.app.json'), 'utf8')).scode as AppDefinition;

describe('refusals of the built-in planner', () => {
  it('name what was not understood and give three examples from the app, each of which it then understands', () => {
    const plan = planText('Give me the top ten customers by revenue', chinook);
    const reply = replyText(dryRun(chinook, '1.0.0', plan), plan);
    expect(reply).toContain('I did not understand: "Give me the top ten customers by revenue"');
    expect(plan.examples).toHaveLength(3);
    expect(reply).not.toMatch(/to-do/i);
    const names = chinook.models.map((m) => m.name.toLowerCase());
    for (const example of plan.examples!) {
      expect(names.some((n) => example.replace(/\s/g, '').toLowerCase().includes(n))).toBe(true);
      expect(dryRun(chinook, '1.0.0', planText(example, chinook)).status).toBe('proposed');
    }
  });

  it('say what was understood when nothing needs to change (a field that exists under a near name)', () => {
    const plan = planText('Add a phone number to customers', chinook);
    const reply = replyText(dryRun(chinook, '1.0.0', plan), plan);
    expect(plan.operations).toEqual([]);
    expect(reply).toContain('Customer already has the field phone');
    expect(reply).toContain('Nothing needs to change');
  });
});
