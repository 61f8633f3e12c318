/**
 * The version bump of a change (DESIGN §8), by what it does to the generated
 * API: `major` when a client of the old API may break, `minor` when the API only
 * grows or relaxes, `patch` when its shape is unchanged (behaviour may change).
 *
 * | change                                                        | bump  |
 * |---------------------------------------------------------------|-------|
 * | model removed / renamed (resource path changes)               | major |
 * | model added                                                   | minor |
 * | model or field access control changed                         | patch |
 * | field removed / renamed / `to` changed                        | major |
 * | field added, optional (min 0, or a default, or computed)      | minor |
 * | field added, required on create (min ≥ 1, no default)         | major |
 * | min raised                                                    | major |
 * | min lowered                                                   | minor |
 * | max: one value ↔ a list (the member's JSON type changes)      | major |
 * | max lowered (within lists; null = unbounded)                  | major |
 * | max raised (within lists)                                     | minor |
 * | enum set on an unrestricted field / enum loses values         | major |
 * | enum removed / enum gains values only                         | minor |
 * | enum reordered                                                | patch |
 * | field becomes computed (read-only)                            | major |
 * | field no longer computed                                      | minor |
 * | field no longer computed, now required (min ≥ 1, no default)  | major |
 * | computed expression changed                                   | patch |
 * | default removed on a required field                           | major |
 * | default added on a required field                             | minor |
 * | default changed otherwise                                     | patch |
 * | relationshipOwner changed (storage side, same API shape)      | patch |
 * | HTTP trigger removed, or its method/path changed              | major |
 * | HTTP trigger becomes isPublic false (needs an end user)       | major |
 * | HTTP trigger added, or becomes public                         | minor |
 * | event trigger added / removed / changed                       | patch |
 * | trigger actionId, initialState, validation, selectors changed | patch |
 * | action removed that an HTTP trigger started                   | major |
 * | action added / changed, other action removed, effects         | patch |
 * | userModelId changed (sign-up body and `auth` change)          | major |
 * | requirements, personas, overview, draft, domain model, texts  | patch |
 * | nothing changed (a save still makes a version)                | patch |
 *
 * The highest bump of all changes wins.
 */
import type { AppDefinition } from '../schema.ts';
import { maxBump, type Bump } from './change.ts';
import { ratedChanges } from './diff.ts';

export function computeBump(previous: AppDefinition, next: AppDefinition): Bump {
  return maxBump(ratedChanges(previous, next).map((c) => c.bump));
}
