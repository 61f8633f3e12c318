/** Semantic version arithmetic for `serverVersion`. */
import type { Bump } from './change.ts';

/**
 * `1.0.1` + patch → `1.0.2`, + minor → `1.1.0`, + major → `2.0.0`. Lenient on
 * input: a leading `v`, missing parts (`1.2` = `1.2.0`) and a pre-release or
 * build suffix (dropped) are accepted; no version or an unreadable one counts as `0.0.0`.
 */
export function nextVersion(current: string | null | undefined, bump: Bump): string {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec((current ?? '').trim());
  const [major, minor, patch] = match ? [match[1], match[2], match[3]].map((p) => Number(p ?? 0)) : [0, 0, 0];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}
