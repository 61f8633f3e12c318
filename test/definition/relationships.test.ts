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

describe('several relationships between two models, paired by partner ids', () => {
  const rule = { rules: [] };
  const edge = (id: string, name: string, to: string, owner: boolean, max: number | null, partner?: string) => ({
    id: `urn:svc:edge:${id}`, name, relationshipOwner: owner, min: 0, max, to, accessControl: rule, ...(partner ? { partner: `urn:svc:edge:${partner}` } : {}),
  });
  const flights = (destinationPartner = 'airport-arrivals') => ({
    models: [
      { id: 'urn:svc:model:flight', name: 'Flight', referenceRequirements: [], accessControl: rule, fields: [
        edge('flight-origin', 'origin', 'urn:svc:model:airport', false, 1, 'airport-departures'),
        edge('flight-destination', 'destination', 'urn:svc:model:airport', false, 1, destinationPartner),
      ] },
      { id: 'urn:svc:model:airport', name: 'Airport', referenceRequirements: [], accessControl: rule, fields: [
        edge('airport-departures', 'departures', 'urn:svc:model:flight', true, null, 'flight-origin'),
        edge('airport-arrivals', 'arrivals', 'urn:svc:model:flight', true, null),
      ] },
    ],
  });

  it('pairs each field with the partner it names, or that names it, and stores each pair in its own column', () => {
    const def = flights();
    const [flight, airport] = def.models;
    expect(findPartner(def, flight, flight.fields[0])?.name).toBe('departures');
    expect(findPartner(def, flight, flight.fields[1])?.name).toBe('arrivals');
    // arrivals names no partner: Flight.destination names it
    expect(findPartner(def, airport, airport.fields[1])?.name).toBe('destination');
    expect(relationshipStorage(def, airport, airport.fields[0])).toMatchObject({ kind: 'foreignKey', column: columnNameForField('urn:svc:edge:flight-origin') });
    expect(relationshipStorage(def, airport, airport.fields[1])).toMatchObject({ kind: 'foreignKey', column: columnNameForField('urn:svc:edge:flight-destination') });
  });

  it('refuses a partner that is not a field pointing back, or that names another', async () => {
    const { checkRelationships } = await import('../../src/definition/consistency/relationships.ts');
    expect(checkRelationships(flights() as never)).toEqual([]);
    expect(checkRelationships(flights('airport-nowhere') as never)).toEqual([
      { path: '/models/0/fields/1/partner', message: 'The partner urn:svc:edge:airport-nowhere is not a field of the model urn:svc:model:airport.' },
    ]);
    expect(checkRelationships(flights('airport-departures') as never)).toEqual([
      { path: '/models/0/fields/1/partner', message: 'The partner urn:svc:edge:airport-departures names another partner (urn:svc:edge:flight-origin).' },
    ]);
  });
});
