/**
 * The current definitions of recently used applications, parsed and sealed
 * (definition/versioning/sealed.ts), per process (issue 28). Reading a 1,000-model definition back
 * from the store and parsing it cost more than the rest of a one-field edit.
 *
 * An entry is used only when the application row read in the same transaction names it: the
 * same serverVersion and the same manifest, which content-addresses the whole definition (every
 * model, action, ... by its hash). Another process's change moves both, so several processes
 * over one PostgreSQL database each read the definition again after the others' edits and never
 * use a stale one. Entries are set after their transaction committed.
 *
 * Bounded by the definitions' size (their JSON bytes; least recently used first out), not by a
 * count: a few large applications or many small ones.
 */
import type { AppDefinition } from '../../definition/schema.ts';
import { canonicalJson } from '../../definition/versioning/stored-form.ts';

/** Default bound: the JSON bytes of the definitions kept (their sealed objects take ~2.5 times that in the heap). */
export const DEFINITION_CACHE_BYTES = 16 * 1024 * 1024;

interface Entry {
  serverVersion: string;
  manifestKey: string;
  definition: AppDefinition;
  bytes: number;
}

export class DefinitionCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(readonly maxBytes = DEFINITION_CACHE_BYTES) {}

  /** The JSON bytes of the definitions held. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The application's definition when it is the one this row names. */
  get(applicationId: string, serverVersion: string, manifest: unknown): AppDefinition | undefined {
    const entry = this.#entries.get(applicationId);
    if (!entry) return undefined;
    if (entry.serverVersion !== serverVersion || entry.manifestKey !== canonicalJson(manifest)) {
      this.delete(applicationId);
      return undefined;
    }
    this.#entries.delete(applicationId);
    this.#entries.set(applicationId, entry);
    return entry.definition;
  }

  /** Keeps a sealed definition as the application's current one (after its transaction committed). */
  set(applicationId: string, serverVersion: string, manifest: unknown, definition: AppDefinition, bytes: number): void {
    this.delete(applicationId);
    if (bytes > this.maxBytes) return;
    this.#entries.set(applicationId, { serverVersion, manifestKey: canonicalJson(manifest), definition, bytes });
    this.#bytes += bytes;
    for (const [id, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(id);
      this.#bytes -= entry.bytes;
    }
  }

  delete(applicationId: string): void {
    const entry = this.#entries.get(applicationId);
    if (!entry) return;
    this.#entries.delete(applicationId);
    this.#bytes -= entry.bytes;
  }
}
