/** Versions of a definition: the bump a change deserves, the next version, a readable diff. */
export { computeBump } from './bump.ts';
export { nextVersion } from './version.ts';
export { diffDefinitions, ratedChanges } from './diff.ts';
export type { Bump, Change, ChangeKind, RatedChange } from './change.ts';
