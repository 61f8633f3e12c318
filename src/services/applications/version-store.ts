// Writing and reading version definitions in their stored form (definition/versioning/stored-form.ts,
// migration 017): a version row holds a manifest; the blobs it names are shared with the
// application's other versions, so a new version stores only the blobs no earlier one has.
import type { Kysely } from 'kysely';
import type { ControlPlane } from '../../storage/tables.ts';
import { jsonb } from '../../storage/sql.ts';
import { manifestHashes, rebuild, toStoredForm, type Manifest } from '../../definition/versioning/stored-form.ts';
import type { AppDefinition } from '../../definition/schema.ts';

/** Blobs per insert statement: bounded parameters and statement size. */
const INSERT_BATCH = 200;

/** Stores the blobs of `definition` the application does not have yet; returns its manifest. */
export async function storeDefinition(executor: Kysely<ControlPlane>, applicationId: string, definition: AppDefinition): Promise<Manifest> {
  const { manifest, blobs } = toStoredForm(definition as unknown as Record<string, unknown>);
  const present = new Set<string>();
  const hashes = blobs.map((b) => b.hash);
  for (let i = 0; i < hashes.length; i += 1000) {
    const rows = await executor
      .selectFrom('appbuilder.version_blobs')
      .select('hash')
      .where('application_id', '=', applicationId)
      .where('hash', 'in', hashes.slice(i, i + 1000))
      .execute();
    for (const row of rows) present.add(row.hash);
  }
  const missing = blobs.filter((b) => !present.has(b.hash));
  for (let i = 0; i < missing.length; i += INSERT_BATCH) {
    await executor
      .insertInto('appbuilder.version_blobs')
      .values(missing.slice(i, i + INSERT_BATCH).map((b) => ({ application_id: applicationId, hash: b.hash, body: jsonb(b.body) })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  return manifest;
}

/** The definitions of these manifests, rebuilt from the application's blobs (two reads for any number of versions). */
export async function loadDefinitions(executor: Kysely<ControlPlane>, applicationId: string, manifests: Manifest[]): Promise<AppDefinition[]> {
  const bodies = new Map<string, unknown>();
  const fetch = async (hashes: string[]) => {
    const wanted = [...new Set(hashes)].filter((h) => !bodies.has(h));
    for (let i = 0; i < wanted.length; i += 1000) {
      const rows = await executor
        .selectFrom('appbuilder.version_blobs')
        .select(['hash', 'body'])
        .where('application_id', '=', applicationId)
        .where('hash', 'in', wanted.slice(i, i + 1000))
        .execute();
      for (const row of rows) bodies.set(row.hash, row.body);
    }
  };
  const direct = manifests.flatMap(manifestHashes);
  await fetch(direct);
  // The chunks name the elements.
  const chunkHashes = manifests.flatMap((m) =>
    Object.values(m).flatMap((v) => (typeof v === 'object' && v !== null && '$chunks' in v ? v.$chunks : [])),
  );
  await fetch(chunkHashes.flatMap((h) => (bodies.get(h) as string[] | undefined) ?? []));
  return manifests.map((m) => rebuild(m, (h) => bodies.get(h)) as unknown as AppDefinition);
}
