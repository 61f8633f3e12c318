/**
 * The frontend bundle is zipped as it is made: `bundleFiles` makes each file when the zip asks
 * for it and `zipFiles` hands compressed chunks on before it takes the next file, so no moment
 * holds the whole bundle (the download route then streams the stored chunks:
 * test/frontend/streaming.test.ts). The archive still unzips to exactly the files of the bundle,
 * the version's typed client (`client.ts`) among them.
 */
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { buildFrontendBundle, bundleFiles, zipFiles, type BundleFile, type FrontendBundleInput } from '../../src/frontend/index.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { versionClient } from '../../src/runtime/docs/typescript-client.ts';
import { todoScode } from '../support/examples.ts';

const APP_ID = '0190a1b2-0000-7000-8000-000000000001';
const API = `http://localhost:8080/apps/${APP_ID}/api/v1.0.1`;

async function input(): Promise<FrontendBundleInput> {
  const definition = todoScode() as unknown as AppDefinition;
  return { definition, serverVersion: '1.0.1', apiBaseUrl: API, client: await versionClient(compileApp(APP_ID, '1.0.1', definition)) };
}

describe('frontend bundle zipped as it is made', () => {
  it('unzips to exactly the files of the bundle, client.ts included', async () => {
    const bundle = await input();
    const chunks: Uint8Array[] = [];
    await zipFiles(bundleFiles(bundle), (chunk) => {
      chunks.push(chunk);
    });
    const entries = unzipSync(new Uint8Array(Buffer.concat(chunks)));
    const expected = buildFrontendBundle(bundle);
    expect(Object.keys(entries).sort()).toEqual(expected.map((f) => f.path).sort());
    for (const file of expected) expect(strFromU8(entries[file.path]), file.path).toBe(file.content);
    expect(strFromU8(entries['client.ts'])).toBe(bundle.client);
    expect(strFromU8(entries['README.md'])).toContain('`client.ts`');
    // Without a client the bundle is what it was: no client.ts, no line about it.
    const plain = buildFrontendBundle({ ...bundle, client: undefined });
    expect(plain.map((f) => f.path)).not.toContain('client.ts');
    expect(plain.find((f) => f.path === 'README.md')!.content).not.toContain('client.ts');
  }, 60_000);

  it('takes one file at a time: compressed bytes go out before the next file is made', async () => {
    const bundle = await input();
    let made = 0;
    function* counted(): Generator<BundleFile> {
      for (const file of bundleFiles(bundle)) {
        made++;
        yield file;
      }
    }
    const madeAtEachChunk: number[] = [];
    await zipFiles(counted(), async (chunk) => {
      madeAtEachChunk.push(made);
      expect(chunk.byteLength).toBeGreaterThan(0);
    });
    const total = buildFrontendBundle(bundle).length;
    expect(made).toBe(total);
    // The first bytes leave while only the first file exists, and every file's bytes leave before the next one is made.
    expect(madeAtEachChunk[0]).toBe(1);
    expect(new Set(madeAtEachChunk).size).toBe(total);
  }, 60_000);
});
