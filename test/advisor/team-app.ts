// A definition for the advisor's tests: the to-do example plus Project, with an owner, members,
// a field rule (the note is the owner's) and a relationship rule (`size(record.members) > 0`).
import { todoScodeWithoutEvents } from '../runtime/served-app.ts';

export const PROJECT_RULES = ['auth != null && record.owner == auth.id', "auth != null && operation == 'read' && size(record.members) > 0"];
export const NOTE_RULE = 'auth != null && record.owner == auth.id';

const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  relationshipOwner: true,
  min: 0,
  max: 1,
  to,
  accessControl: { rules: [] },
  ...extra,
});

export function teamScode(): ReturnType<typeof todoScodeWithoutEvents> {
  const scode = todoScodeWithoutEvents() as unknown as { models: unknown[] };
  scode.models.push({
    id: 'urn:svc:model:project',
    name: 'Project',
    fields: [
      field('urn:svc:edge:project-name', 'name', 'p_TEXT', { min: 1 }),
      field('urn:svc:edge:project-note', 'note', 'p_TEXT', { accessControl: { rules: [{ access: 'allow', criteria: NOTE_RULE }], defaultAccess: 'deny' } }),
      field('urn:svc:edge:project-owner', 'owner', 'urn:svc:model:user', { relationshipOwner: false, min: 1 }),
      field('urn:svc:edge:project-members', 'members', 'urn:svc:model:user', { max: null }),
    ],
    accessControl: { rules: PROJECT_RULES.map((criteria) => ({ access: 'allow', criteria })), defaultAccess: 'deny' },
  });
  return scode as unknown as ReturnType<typeof todoScodeWithoutEvents>;
}
