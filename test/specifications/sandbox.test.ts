// The document sandbox with real worker threads: a build past the time limit or the heap limit
// stops its worker and fails naming the document and the limit; the next build runs in a fresh
// worker and succeeds; builds wait for the pool's one worker; closing fails what still waits.
// The caps each extractor applies before and while parsing are in limits.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { ExtractionSandbox, type SandboxSettings } from '../../src/specifications/sandbox.ts';
import type { BuildAttachment } from '../../src/specifications/build.ts';
import { manyKeysYaml } from '../support/hostile-documents.ts';

const PRD: BuildAttachment = {
  id: 'prd',
  name: 'library.md',
  kind: 'markdown',
  bytes: Buffer.from('# Library\n\n- As a reader, I want to borrow a book, so that I can read it at home.\n'),
};

/** An OpenAPI document whose JSON has ~400,000 schemas' worth of values: its parse alone needs well over 100 MB of heap. */
function heavyJson(): BuildAttachment {
  const schemas = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`S${i}`, { type: 'object', properties: { a: { type: 'string' } } }]));
  return { id: 'heavy', name: 'heavy.json', kind: 'openapi', bytes: Buffer.from(JSON.stringify({ openapi: '3.0.3', info: { title: 'H', version: '1' }, paths: {}, components: { schemas } })) };
}

describe('document sandbox', () => {
  let sandbox: ExtractionSandbox | undefined;
  const open = (settings: Partial<SandboxSettings>) => (sandbox = new ExtractionSandbox({ timeoutMs: 30_000, memoryMb: 512, workers: 1, ...settings }));
  afterEach(() => sandbox?.close());

  it('stops a document past the time limit, naming it and the limit; the next build runs in a fresh worker', async () => {
    const pool = open({ timeoutMs: 300 });
    const slow: BuildAttachment = { id: 'keys', name: 'keys.yaml', kind: 'openapi', bytes: manyKeysYaml(70_000) };
    const started = performance.now();
    await expect(pool.build('Slow', [slow])).rejects.toThrow('Reading keys.yaml (openapi) took longer than the limit of 300 ms (APPBUILDER_EXTRACT_TIMEOUT): it was stopped.');
    console.log(`stopped after ${(performance.now() - started).toFixed(0)} ms (worker start included)`);
    pool.settings.timeoutMs = 30_000;
    const built = await pool.build('Library', [PRD]);
    expect(built.summary.requirements).toBe(1);
  }, 120_000);

  it('stops a document that needs more heap than the limit, naming it and the limit; the next build runs in a fresh worker', async () => {
    const pool = open({ memoryMb: 64 });
    await expect(pool.build('Heavy', [heavyJson()])).rejects.toThrow('Reading heavy.json (openapi) needed more memory than the limit of 64 MB (APPBUILDER_EXTRACT_MEMORY_MB): it was stopped.');
    const built = await pool.build('Library', [PRD]);
    expect(built.summary.requirements).toBe(1);
  }, 120_000);

  it('runs builds one after another on a pool of one worker, and fails those still waiting when closed', async () => {
    const pool = open({ workers: 1 });
    const [a, b] = await Promise.all([pool.build('A', [PRD]), pool.build('B', [PRD])]);
    expect([a.content.appOverview?.name, b.content.appOverview?.name]).toEqual(['Library', 'Library']);
    const running = pool.build('C', [PRD]).catch((error: Error) => error.message);
    const waiting = pool.build('D', [PRD]).catch((error: Error) => error.message);
    await pool.close();
    expect(await waiting).toBe('The service is stopping: no document is read any more.');
    expect(await running).toBe('The service stopped while the document was being read.');
  }, 120_000);
});
