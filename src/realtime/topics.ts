// The topic index of the realtime hub (DESIGN §17): per served version and topic, the audiences
// listening (subscribers who read alike) and each one's connections. A change then costs what its
// topics' audiences cost, never a walk over every connection of the process: the audiences of a
// topic are one array kept while nobody joins or leaves, so the visibility statement built for it
// (visibility.ts caches it per array) is reused from one change to the next.
import type { CompiledApp } from '../runtime/compiled-app.ts';
import type { Audience } from './visibility.ts';

/** What the index needs of a connection. */
export interface Listener {
  readonly applicationId: string;
  readonly served: { compiled: CompiledApp };
  readonly audience: Audience;
}

interface TopicEntry<C> {
  /** An audience's connections as an array: mostly one (an end user's tab), and a set costs several times as much. */
  readonly byAudience: Map<string, { audience: Audience; connections: C[] }>;
  /** The audiences as one array; null until asked for after a change of the entry. */
  list: Audience[] | null;
}

type Topics<C> = Map<string, TopicEntry<C>>;

export class TopicIndex<C extends Listener> {
  /** applicationId → served version → topic → who listens. */
  private readonly apps = new Map<string, Map<CompiledApp, Topics<C>>>();
  /** The union of a resource topic's and a record topic's audiences, kept with the record topic's entry. */
  private readonly unions = new WeakMap<TopicEntry<C>, { of: [Audience[], Audience[]]; list: Audience[] }>();

  /** `connection` listens to `topics` from now on. */
  add(connection: C, topics: Iterable<string>): void {
    let versions = this.apps.get(connection.applicationId);
    if (!versions) this.apps.set(connection.applicationId, (versions = new Map()));
    const app = connection.served.compiled;
    let byTopic = versions.get(app);
    if (!byTopic) versions.set(app, (byTopic = new Map()));
    for (const topic of topics) {
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { byAudience: new Map(), list: null }));
      const key = connection.audience.key;
      let group = entry.byAudience.get(key);
      if (!group) {
        entry.byAudience.set(key, (group = { audience: connection.audience, connections: [] }));
        entry.list = null;
      }
      if (!group.connections.includes(connection)) group.connections.push(connection);
    }
  }

  /** `connection` no longer listens to `topics`. */
  remove(connection: C, topics: Iterable<string>): void {
    const versions = this.apps.get(connection.applicationId);
    const app = connection.served.compiled;
    const byTopic = versions?.get(app);
    if (!versions || !byTopic) return;
    for (const topic of topics) {
      const entry = byTopic.get(topic);
      const group = entry?.byAudience.get(connection.audience.key);
      const at = group?.connections.indexOf(connection) ?? -1;
      if (!entry || !group || at < 0) continue;
      group.connections.splice(at, 1);
      if (group.connections.length > 0) continue;
      entry.byAudience.delete(connection.audience.key);
      entry.list = null;
      if (entry.byAudience.size === 0) byTopic.delete(topic);
    }
    if (byTopic.size === 0) versions.delete(app);
    if (versions.size === 0) this.apps.delete(connection.applicationId);
  }

  /** The served versions of the application that someone listens to. */
  versions(applicationId: string): CompiledApp[] {
    return [...(this.apps.get(applicationId)?.keys() ?? [])];
  }

  /**
   * The audiences listening to `resource` or `record` (`resource/{id}`), as an array kept while they
   * do not change, and the topic they stand for (visibility.ts keeps a statement per topic); null: nobody.
   */
  audiences(app: CompiledApp, applicationId: string, resource: string, record: string): { list: Audience[]; scope: object } | null {
    const byTopic = this.apps.get(applicationId)?.get(app);
    const whole = byTopic?.get(resource);
    const one = byTopic?.get(record);
    if (!whole && !one) return null;
    if (!one) return { list: listOf(whole!), scope: whole! };
    if (!whole) return { list: listOf(one), scope: one };
    const a = listOf(whole);
    const b = listOf(one);
    const kept = this.unions.get(one);
    if (kept && kept.of[0] === a && kept.of[1] === b) return { list: kept.list, scope: one };
    const list = [...a, ...b.filter((audience) => !whole.byAudience.has(audience.key))];
    this.unions.set(one, { of: [a, b], list });
    return { list, scope: one };
  }

  /** The connections of audience `key` listening to any of `topics`. */
  connections(app: CompiledApp, applicationId: string, topics: readonly string[], key: string): C[] {
    const byTopic = this.apps.get(applicationId)?.get(app);
    if (!byTopic) return [];
    const found = new Set<C>();
    for (const topic of topics) for (const connection of byTopic.get(topic)?.byAudience.get(key)?.connections ?? []) found.add(connection);
    return [...found];
  }
}

function listOf<C>(entry: TopicEntry<C>): Audience[] {
  entry.list ??= [...entry.byAudience.values()].map((group) => group.audience);
  return entry.list;
}
