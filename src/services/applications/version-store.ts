// Writing and reading definitions in their stored form (definition/versioning/stored-form.ts,
// migrations 017 and 018): a version row, and the application row for its current definition,
// hold a manifest; the blobs it names are shared with the application's other versions, so a
// new version stores only the blobs no earlier one has.
import { sql, type Kysely } from 'kysely';
import type { ControlPlane } from '../../storage/tables.ts';
import { manifestHashes, rebuild, rememberHash, toStoredForm, type Manifest, type StoredForm } from '../../definition/versioning/stored-form.ts';
import { sealParsed } from '../../definition/versioning/sealed.ts';
import type { AppDefinition } from '../../definition/schema.ts';

/** Blobs per insert statement: bounded parameters and statement size. */
const INSERT_BATCH = 200;
/** Hashes per lookup statement. */
const LOOKUP_BATCH = 1000;

export interface StoreOptions {
  /** Blobs the application is known to have (those of the version the change started from): not looked up, not sent. */
  present?: ReadonlySet<string>;
  /** A new application: it has no blobs yet, so none is looked up. */
  fresh?: boolean;
}

/** Stores the blobs of a stored form the application does not have yet. */
export async function storeBlobs(executor: Kysely<ControlPlane>, applicationId: string, form: StoredForm, options: StoreOptions = {}): Promise<void> {
  const candidates = options.present ? form.blobs.filter((b) => !options.present!.has(b.hash)) : form.blobs;
  const present = new Set<string>();
  // A few candidates (an edit's) are inserted with `on conflict do nothing` rather than looked up first.
  if (!options.fresh && candidates.length > INSERT_BATCH / 10) {
    const hashes = candidates.map((b) => b.hash);
    for (let i = 0; i < hashes.length; i += LOOKUP_BATCH) {
      const rows = await executor
        .selectFrom('appbuilder.version_blobs')
        .select('hash')
        .where('application_id', '=', applicationId)
        .where('hash', 'in', hashes.slice(i, i + LOOKUP_BATCH))
        .execute();
      for (const row of rows) present.add(row.hash);
    }
  }
  const missing = candidates.filter((b) => !present.has(b.hash));
  for (let i = 0; i < missing.length; i += INSERT_BATCH) {
    await executor
      .insertInto('appbuilder.version_blobs')
      .values(
        missing.slice(i, i + INSERT_BATCH).map((b) => ({
          application_id: applicationId,
          hash: b.hash,
          body: sql<string>`cast(${b.json ?? JSON.stringify(b.body)} as jsonb)`,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** The blob hashes of sealed definitions' stored forms, with the application that stored them (it has them all). */
const hashesOf = new WeakMap<object, { applicationId: string; hashes: ReadonlySet<string> }>();

/**
 * Every blob hash of the stored form of `definition` (sealed), the application's current or
 * new definition: `form` when the caller has it, else computed once per definition.
 */
export function storedHashes(applicationId: string, definition: AppDefinition, form?: StoredForm): ReadonlySet<string> {
  let known = hashesOf.get(definition);
  if (known?.applicationId !== applicationId) {
    known = { applicationId, hashes: new Set((form ?? toStoredForm(definition as unknown as Record<string, unknown>)).blobs.map((b) => b.hash)) };
    hashesOf.set(definition, known);
  }
  return known.hashes;
}

export interface LoadedDefinition {
  definition: AppDefinition;
  /** The JSON bytes of its blobs (elements and single blobs), about its JSON size. */
  bytes: number;
}

type Bodies = Map<string, { body: unknown; bytes: number }>;

/**
 * The blobs of these manifests (two reads for any number of versions). `sealed`: each body
 * sealed (definition/versioning/sealed.ts) with its hash remembered, so a definition read back
 * shares, hashes and caches as one this process stored; else as the driver parses them.
 */
async function loadBlobs(executor: Kysely<ControlPlane>, applicationId: string, manifests: Manifest[], sealed: boolean): Promise<Bodies> {
  const bodies: Bodies = new Map();
  const fetch = async (hashes: string[]) => {
    const wanted = [...new Set(hashes)].filter((h) => !bodies.has(h));
    for (let i = 0; i < wanted.length; i += LOOKUP_BATCH) {
      const query = executor.selectFrom('appbuilder.version_blobs').where('application_id', '=', applicationId).where('hash', 'in', wanted.slice(i, i + LOOKUP_BATCH));
      if (!sealed) {
        for (const row of await query.select(['hash', 'body']).execute()) bodies.set(row.hash, { body: row.body, bytes: 0 });
        continue;
      }
      // The text of each body, parsed here as the driver parses jsonb: its length is the blob's size.
      for (const row of await query.select(['hash', sql<string>`body::text`.as('text')]).execute()) {
        const body = sealParsed(JSON.parse(row.text) as unknown);
        rememberHash(body, row.hash, row.text.length);
        bodies.set(row.hash, { body, bytes: row.text.length });
      }
    }
  };
  await fetch(manifests.flatMap(manifestHashes));
  // The chunks name the elements.
  const chunkHashes = manifests.flatMap((m) =>
    Object.values(m).flatMap((v) => (typeof v === 'object' && v !== null && '$chunks' in v ? v.$chunks : [])),
  );
  await fetch(chunkHashes.flatMap((h) => (bodies.get(h)?.body as string[] | undefined) ?? []));
  return bodies;
}

/** An application's current definition, rebuilt from its manifest and sealed (the cache keeps it). */
export async function loadCurrentDefinition(executor: Kysely<ControlPlane>, applicationId: string, manifest: Manifest): Promise<LoadedDefinition> {
  const bodies = await loadBlobs(executor, applicationId, [manifest], true);
  const need = (hash: string) => {
    const blob = bodies.get(hash);
    if (!blob) throw new Error(`Version blob ${hash} is missing`);
    return blob;
  };
  const definition = rebuild(manifest, (hash) => bodies.get(hash)?.body);
  let bytes = 0;
  for (const value of Object.values(manifest)) {
    if (typeof value !== 'object' || value === null) continue;
    if ('$blob' in value) bytes += need(value.$blob).bytes;
    else for (const chunk of value.$chunks) for (const hash of need(chunk).body as string[]) bytes += need(hash).bytes;
  }
  return { definition: sealParsed(definition) as unknown as AppDefinition, bytes };
}

/** The definitions of these manifests, rebuilt from the application's blobs (versions, answered as they are read). */
export async function loadDefinitions(executor: Kysely<ControlPlane>, applicationId: string, manifests: Manifest[]): Promise<AppDefinition[]> {
  const bodies = await loadBlobs(executor, applicationId, manifests, false);
  return manifests.map((m) => rebuild(m, (hash) => bodies.get(hash)?.body) as unknown as AppDefinition);
}
