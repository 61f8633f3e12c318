import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { shapeErrors, validateShape } from '../../src/definition/shape.ts';
import { todo } from './fixtures/index.ts';

/** The 400 details of a value. */
function errorsOf(value: unknown): { path: string; message: string }[] {
  try {
    validateShape(value);
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    expect((error as Problem).status).toBe(400);
    return (error as Problem).errors;
  }
  throw new Error('expected a shape error');
}

describe('validateShape', () => {
  it('accepts the to-do example', () => {
    const def = todo();
    expect(validateShape(def)).toBe(def);
    expect(shapeErrors(def)).toEqual([]);
  });

  it('accepts null overview, draft and domain model, and no personas', () => {
    const def = todo() as unknown as Record<string, unknown>;
    def.appOverview = null;
    def.appDraft = null;
    def.domainModel = null;
    delete def.personas;
    expect(shapeErrors(def)).toEqual([]);
  });

  it('preserves unknown members', () => {
    const def = todo() as unknown as Record<string, unknown> & { models: Record<string, unknown>[] };
    def.x_custom = { a: 1 };
    def.models[0].color = 'blue';
    const out = validateShape(def) as unknown as Record<string, unknown>;
    expect(out.x_custom).toEqual({ a: 1 });
    expect((out.models as Record<string, unknown>[])[0].color).toBe('blue');
  });

  it('lists every error with its JSON pointer', () => {
    const def = todo() as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- free-form mutation of a parsed JSON fixture
    delete def.appId;
    def.models[0].fields[2].to = 42;
    def.models[0].id = 'todo';
    def.models[1].fields[0].max = 'many';
    def.requirements[0].importanceForUser = 'nice';
    def.triggers[0].trigger.method = 'FETCH';
    delete def.triggers[1].trigger.payload;
    def.actions[0].effects[0].bindParams.id = 3;
    const errors = errorsOf(def);
    const paths = errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/appId',
        '/models/0/fields/2/to',
        '/models/0/id',
        '/models/1/fields/0/max',
        '/requirements/0/importanceForUser',
        '/triggers/0/trigger/method',
        '/triggers/1/trigger/payload',
        '/actions/0/effects/0/bindParams/id',
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
    expect(errors.find((e) => e.path === '/appId')?.message).toMatch(/missing/);
    expect(errors.find((e) => e.path === '/models/0/id')?.message).toMatch(/urn:svc:model:/);
    expect(errors.find((e) => e.path === '/models/1/fields/0/max')?.message).toMatch(/number or null/);
  });

  it('reports inside a nullable object rather than "expected null"', () => {
    const def = todo() as unknown as { appOverview: Record<string, unknown> };
    delete def.appOverview.jobToBeDone;
    expect(errorsOf(def)).toEqual([{ path: '/appOverview/jobToBeDone', message: 'Required member is missing' }]);
  });

  it('checks id prefixes', () => {
    const def = todo();
    def.models[0].fields[0].id = 'edge:title';
    def.actions[0].id = 'complete';
    def.triggers[0].trigger.id = 'trigger:x';
    def.requirements[0].id = 'requirement/x';
    def.userModelId = 'user';
    expect(errorsOf(def).map((e) => e.path).sort()).toEqual(
      ['/actions/0/id', '/models/0/fields/0/id', '/requirements/0/id', '/triggers/0/trigger/id', '/userModelId'].sort(),
    );
  });

  it('requires effect ids and names but not the other effect members', () => {
    const def = todo() as unknown as { actions: { effects: Record<string, unknown>[] }[] };
    def.actions[0].effects[3] = { params: {} };
    expect(errorsOf(def).map((e) => e.path).sort()).toEqual(['/actions/0/effects/3/actionEffectId', '/actions/0/effects/3/effect']);
  });

  it('refuses a value that is not an object', () => {
    expect(errorsOf('scode')).toEqual([{ path: '', message: expect.stringMatching(/object/) }]);
  });
});
