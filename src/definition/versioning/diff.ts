/**
 * `diffDefinitions(a, b)`: a readable list of what changed from `a` to `b`, at
 * the level of models, fields, actions (and their effects), triggers and the
 * drafting sections. The definition's own `version` member is not compared.
 */
import type { Action, AppDefinition, Trigger } from '../schema.ts';
import { bare, matchBy, sameJson, type Bump, type Change, type RatedChange } from './change.ts';
import { modelChanges } from './diff-models.ts';

export function diffDefinitions(a: AppDefinition, b: AppDefinition): Change[] {
  return ratedChanges(a, b).map(({ kind, path, summary }) => ({ kind, path, summary }));
}

/** Every change with its bump (see `bump.ts` for the table). */
export function ratedChanges(a: AppDefinition, b: AppDefinition): RatedChange[] {
  return [...modelChanges(a, b), ...actionChanges(a, b), ...triggerChanges(a, b), ...sectionChanges(a, b)];
}

function actionChanges(a: AppDefinition, b: AppDefinition): RatedChange[] {
  const out: RatedChange[] = [];
  const routed = new Set(a.triggers.filter((t) => t.trigger.type === 'http').map((t) => t.actionId));
  const { removed, added, kept } = matchBy(a.actions, b.actions, (x) => x.id);
  for (const { item, index } of removed) {
    const used = routed.has(item.id);
    const summary = `action ${bare(item.id)} removed${used ? ' (it served an HTTP route)' : ''}`;
    out.push({ kind: 'removed', path: `/actions/${index}`, summary, bump: used ? 'major' : 'patch' });
  }
  for (const { item, index } of added) {
    out.push({ kind: 'added', path: `/actions/${index}`, summary: `action ${bare(item.id)} added (${item.effects.length} effect(s))`, bump: 'patch' });
  }
  for (const { before, after, indexBefore, index } of kept) out.push(...effectChanges(before, after, indexBefore, index));
  return out;
}

function effectChanges(before: Action, after: Action, indexBefore: number, index: number): RatedChange[] {
  const out: RatedChange[] = [];
  const name = `action ${bare(after.id)}`;
  const at = `/actions/${index}`;
  const { removed, added, kept } = matchBy(before.effects, after.effects, (e) => e.actionEffectId);
  for (const { item, index: e } of removed) {
    out.push({ kind: 'removed', path: `/actions/${indexBefore}/effects/${e}`, summary: `${name}: effect '${item.actionEffectId}' removed`, bump: 'patch' });
  }
  for (const { item, index: e } of added) {
    out.push({ kind: 'added', path: `${at}/effects/${e}`, summary: `${name}: effect '${item.actionEffectId}' added (${item.effect})`, bump: 'patch' });
  }
  for (const { before: x, after: y, index: e } of kept) {
    if (!sameJson(x, y)) {
      out.push({ kind: 'changed', path: `${at}/effects/${e}`, summary: `${name}: effect '${y.actionEffectId}' changed`, bump: 'patch' });
    }
  }
  const order = (list: Action['effects']) => list.map((e) => e.actionEffectId).filter((id) => kept.some((k) => k.after.actionEffectId === id));
  if (!sameJson(order(before.effects), order(after.effects))) {
    out.push({ kind: 'changed', path: `${at}/effects`, summary: `${name}: effects reordered`, bump: 'patch' });
  }
  for (const member of ['startEffectId', 'bindReturnValue', 'onError', 'referenceRequirements'] as const) {
    if (!sameJson(before[member], after[member])) {
      out.push({ kind: 'changed', path: `${at}/${member}`, summary: `${name}: ${member} changed`, bump: 'patch' });
    }
  }
  return out;
}

/** `POST /toDos/:id/complete` or `event User.created`. */
function describe(t: Trigger): string {
  return t.trigger.type === 'http' ? `${t.trigger.method} ${t.trigger.path}` : `event ${t.trigger.eventName}`;
}

const route = (t: Trigger): string | undefined => (t.trigger.type === 'http' ? `${t.trigger.method} ${t.trigger.path}` : undefined);
/** Absent `isPublic` counts as public: only `false` requires an authenticated end user (DESIGN §6). */
const isPublic = (t: Trigger): boolean => t.isPublic !== false;

function triggerChanges(a: AppDefinition, b: AppDefinition): RatedChange[] {
  const out: RatedChange[] = [];
  const { removed, added, kept } = matchBy(a.triggers, b.triggers, (t) => t.trigger.id);
  for (const { item, index } of removed) {
    const summary = `trigger ${describe(item)} removed`;
    out.push({ kind: 'removed', path: `/triggers/${index}`, summary, bump: route(item) ? 'major' : 'patch' });
  }
  for (const { item, index } of added) {
    const summary = `trigger ${describe(item)} added (starts ${bare(item.actionId)})`;
    out.push({ kind: 'added', path: `/triggers/${index}`, summary, bump: route(item) ? 'minor' : 'patch' });
  }
  for (const { before, after, index } of kept) {
    const at = `/triggers/${index}`;
    const name = `trigger ${bare(after.trigger.id)}`;
    const change = (member: string, summary: string, bump: Bump) => out.push({ kind: 'changed', path: `${at}/${member}`, summary: `${name} ${summary}`, bump });
    const [r1, r2] = [route(before), route(after)];
    if (r1 !== r2) {
      const bump: Bump = r1 === undefined ? 'minor' : 'major';
      change('trigger', `changed from ${describe(before)} to ${describe(after)}`, bump);
    } else if (!sameJson(before.trigger, after.trigger)) {
      change('trigger', `${describe(after)}: definition changed`, 'patch');
    }
    if (r2 !== undefined && isPublic(before) !== isPublic(after)) {
      change('isPublic', isPublic(after) ? 'becomes public' : 'requires an authenticated user', isPublic(after) ? 'minor' : 'major');
    }
    if (before.actionId !== after.actionId) change('actionId', `starts ${bare(after.actionId)} instead of ${bare(before.actionId)}`, 'patch');
    for (const member of ['initialState', 'validation', 'referenceRequirements'] as const) {
      if (!sameJson(before[member], after[member])) change(member, `${member} changed`, 'patch');
    }
  }
  return out;
}

function sectionChanges(a: AppDefinition, b: AppDefinition): RatedChange[] {
  const out: RatedChange[] = [];
  if (a.userModelId !== b.userModelId) {
    const name = (def: AppDefinition) => def.models.find((m) => m.id === def.userModelId)?.name ?? def.userModelId;
    // The sign-up body and `auth` change with the user model.
    out.push({ kind: 'changed', path: '/userModelId', summary: `user model changed from ${name(a)} to ${name(b)}`, bump: 'major' });
  }
  const { removed, added, kept } = matchBy(a.requirements, b.requirements, (r) => r.id);
  for (const { item, index } of removed) out.push({ kind: 'removed', path: `/requirements/${index}`, summary: `requirement ${item.id} removed`, bump: 'patch' });
  for (const { item, index } of added) out.push({ kind: 'added', path: `/requirements/${index}`, summary: `requirement ${item.id} added`, bump: 'patch' });
  for (const { before, after, index } of kept) {
    if (!sameJson(before, after)) out.push({ kind: 'changed', path: `/requirements/${index}`, summary: `requirement ${after.id} changed`, bump: 'patch' });
  }
  for (const member of ['appId', 'appDescription', 'personas', 'appOverview', 'appDraft', 'domainModel'] as const) {
    if (sameJson(a[member], b[member])) continue;
    const kind = a[member] == null ? 'added' : b[member] == null ? 'removed' : 'changed';
    out.push({ kind, path: `/${member}`, summary: `${member} ${kind}`, bump: 'patch' });
  }
  return out;
}
