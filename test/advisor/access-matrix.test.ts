// The access matrix of the shipped examples, by partial evaluation alone: stated here cell by cell.
import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { accessMatrix, matrixSummary } from '../../src/advisor/access-matrix.ts';
import { loadExample } from '../support/examples.ts';

const matrixOf = (name: string) => accessMatrix(compileApp('00000000-0000-4000-8000-000000000001', '1.0.0', loadExample(name).scode as unknown as AppDefinition));
const cells = (name: string) => Object.fromEntries(matrixOf(name).models.map((m) => [m.model, m.operations]));

describe('access matrix', () => {
  it('states the to-do example: owners only, nobody anonymous', () => {
    const own = { anonymous: 'never', signedIn: { when: 'record.user == auth.id' }, owner: 'always', admin: 'always' };
    const self = { anonymous: 'never', signedIn: { when: 'record.id == auth.id' }, owner: 'always', admin: 'always' };
    expect(cells('todo')).toEqual({
      ToDo: { create: own, read: own, update: own, delete: own },
      User: { create: self, read: self, update: self, delete: self },
    });
    expect(matrixOf('todo').models.map((m) => m.ownerField)).toEqual(['user', 'id']);
  });

  it('folds operations and leaves roles to the administrator column (a signed-in user has none)', () => {
    const library = cells('library');
    expect(library.Book.read).toEqual({ anonymous: 'always', signedIn: 'always', admin: 'always' });
    expect(library.Book.create).toEqual({ anonymous: 'never', signedIn: 'never', admin: 'always' });
    expect(library.Loan.update).toEqual({ anonymous: 'never', signedIn: { when: 'record.member == auth.id' }, owner: 'always', admin: 'always' });
    const crm = cells('crm');
    expect(crm.Company.delete).toEqual({ anonymous: 'never', signedIn: 'always', admin: 'always' });
    expect(crm.User.read).toEqual({ anonymous: 'never', signedIn: 'always', owner: 'always', admin: 'always' });
    expect(crm.User.update).toEqual({ anonymous: 'never', signedIn: 'never', owner: 'never', admin: 'always' });
  });

  it('summarises who may do anything', () => {
    expect(matrixSummary(matrixOf('todo'))).toEqual([
      { model: 'ToDo', anonymous: [], signedIn: ['create', 'read', 'update', 'delete'] },
      { model: 'User', anonymous: [], signedIn: ['create', 'read', 'update', 'delete'] },
    ]);
  });
});
