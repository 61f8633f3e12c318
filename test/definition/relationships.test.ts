import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { columnNameForField, joinTableName } from '../../src/definition/naming.ts';
import {
  findPartner,
  holdsForeignKey,
  isManyToMany,
  isRelationship,
  isToMany,
  relationshipStorage,
} from '../../src/definition/relationships.ts';
import { todo } from './fixtures/index.ts';

describe('relationship helpers on the to-do example', () => {
  const def = todo();
  const [todoModel, userModel] = def.models;
  const todoUser = todoModel.fields[4];
  const userTodos = userModel.fields[2];

  it('tell relationships and their cardinality', () => {
    expect(isRelationship(todoUser)).toBe(true);
    expect(isRelationship(todoModel.fields[0])).toBe(false);
    expect(isToMany(userTodos)).toBe(true);
    expect(isToMany(todoUser)).toBe(false);
    expect(isToMany({ max: 3 })).toBe(true);
  });

  it('find the partner that points back', () => {
    expect(findPartner(def, todoModel, todoUser)?.id).toBe('urn:svc:edge:user-todos');
    expect(findPartner(def, userModel, userTodos)?.id).toBe('urn:svc:edge:todo-user');
    expect(findPartner(def, todoModel, todoModel.fields[0])).toBeUndefined();
  });

  it('put the foreign key on the belongs-to side, asked from either side', () => {
    const expected = { kind: 'foreignKey', column: columnNameForField('urn:svc:edge:todo-user') };
    expect(relationshipStorage(def, todoModel, todoUser)).toMatchObject(expected);
    expect(relationshipStorage(def, userModel, userTodos)).toMatchObject(expected);
    expect(relationshipStorage(def, userModel, userTodos)).toMatchObject({ model: { id: 'urn:svc:model:todo' } });
    expect(holdsForeignKey(def, todoModel, todoUser)).toBe(true);
    expect(holdsForeignKey(def, userModel, userTodos)).toBe(false);
    expect(isManyToMany(def, todoModel, todoUser)).toBe(false);
  });

  it('use a join table when both sides are to-many', () => {
    const m2m = todo();
    m2m.models[0].fields[4].max = null;
    const storage = relationshipStorage(m2m, m2m.models[0], m2m.models[0].fields[4]);
    expect(storage).toEqual({
      kind: 'joinTable',
      table: joinTableName('urn:svc:edge:todo-user', 'urn:svc:edge:user-todos'),
      ownerColumn: columnNameForField('urn:svc:edge:todo-user'),
      targetColumn: columnNameForField('urn:svc:edge:user-todos'),
    });
    expect(isManyToMany(m2m, m2m.models[1], m2m.models[1].fields[2])).toBe(true);
  });

  it('store a one-way to-one pointer as a foreign key on its own table', () => {
    const oneWay = todo();
    oneWay.models[1].fields.splice(2, 1);
    expect(relationshipStorage(oneWay, oneWay.models[0], oneWay.models[0].fields[4])).toMatchObject({ kind: 'foreignKey', model: { id: 'urn:svc:model:todo' } });
  });

  it('refuse two partners', () => {
    const two = todo();
    two.models[0].fields.push({ ...two.models[0].fields[4], id: 'urn:svc:edge:todo-assignee', name: 'assignee' });
    expect(() => findPartner(two, two.models[1], two.models[1].fields[2])).toThrow(Problem);
  });
});
