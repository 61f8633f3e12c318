/**
 * The worker thread that reads documents (sandbox.ts starts it): builds one specification at
 * a time from the attachments it is sent, telling the main thread each step as it starts, so
 * that a step over its time limit is stopped and named.
 */
import { parentPort } from 'node:worker_threads';
import { buildSpecification, type BuildAttachment, type BuildStage } from './build.ts';
import { extractorFor } from './extractors/index.ts';
import { ExtractionError } from './extractors/types.ts';
import type { FromWorker, ToWorker } from './sandbox-messages.ts';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts runs as a worker thread (src/specifications/sandbox.ts)');

const send = (message: FromWorker) => port.postMessage(message);

port.on('message', (message: ToWorker) => {
  const attachments: BuildAttachment[] = message.attachments.map((a) => ({ ...a, bytes: new Uint8Array(a.bytes) }));
  const onStage = (stage: BuildStage) => send({ type: 'stage', stage });
  buildSpecification(message.name, attachments, extractorFor, onStage, message.options).then(
    (built) => send({ type: 'built', built }),
    (error: unknown) =>
      send({ type: 'failed', extraction: error instanceof ExtractionError, message: error instanceof Error ? error.message : String(error) }),
  );
});

send({ type: 'ready' });
