import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  AddActionBody,
  CreateFieldBody,
  CreateModelBody,
  CreateTriggerBody,
  EffectModificationsBody,
  SectionBodies,
  UpdateActionBody,
  UpdateFieldBody,
  UpdateModelBody,
} from '../../src/definition/edits/index.ts';
import { todo } from './fixtures/index.ts';

describe('edit body schemas', () => {
  it('accept what the edits take', () => {
    const def = todo();
    const { id: _id, ...action } = def.actions[0];
    expect(Value.Check(AddActionBody, def.actions[0])).toBe(true);
    expect(Value.Check(UpdateActionBody, action)).toBe(true);
    expect(Value.Check(CreateTriggerBody, def.triggers[0])).toBe(true);
    expect(Value.Check(UpdateModelBody, { name: 'Task', accessControl: { rules: [] } })).toBe(true);
    expect(Value.Check(UpdateFieldBody, { enum: null, computed: null, defaultValue: null, max: null, to: 'p_DATE' })).toBe(true);
    expect(Value.Check(CreateModelBody, { name: 'Tag', fields: [{ name: 'label', to: 'p_TEXT' }] })).toBe(true);
    expect(Value.Check(CreateFieldBody, { name: 'project', to: 'urn:svc:model:project', partner: { name: 'toDos', max: null } })).toBe(true);
    expect(Value.Check(EffectModificationsBody, [{ index: 0, modification: 'move', toIndex: 2 }])).toBe(true);
    expect(Value.Check(SectionBodies.personas, def.personas)).toBe(true);
    expect(Value.Check(SectionBodies.domainModel, def.domainModel)).toBe(true);
  });

  it('refuse malformed bodies', () => {
    expect(Value.Check(UpdateFieldBody, { to: 'urn:svc:model:user' })).toBe(false);
    expect(Value.Check(UpdateFieldBody, { min: -1 })).toBe(false);
    expect(Value.Check(UpdateModelBody, { name: '' })).toBe(false);
    expect(Value.Check(CreateModelBody, { id: 'todo', name: 'ToDo' })).toBe(false);
    expect(Value.Check(CreateFieldBody, { name: 'x' })).toBe(false);
    expect(Value.Check(EffectModificationsBody, [{ index: 0, modification: 'swap' }])).toBe(false);
    expect(Value.Check(EffectModificationsBody, [{ index: -1, modification: 'delete' }])).toBe(false);
    expect(Value.Check(UpdateActionBody, { id: 'x', effects: [], startEffectId: 'a' })).toBe(false);
  });
});
