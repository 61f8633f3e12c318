/** The messages between the sandbox (sandbox.ts) and its worker (sandbox-worker.ts). */
import type { BuildOptions, BuildStage, BuiltSpecification } from './build.ts';
import type { AttachmentKind } from './extractors/types.ts';

/** One build: the attachments' bytes travel as transferred buffers, never copied twice. */
export interface ToWorker {
  name: string;
  attachments: Array<{ id: string; name: string; kind: AttachmentKind; bytes: ArrayBuffer }>;
  options?: BuildOptions;
}

export type FromWorker =
  | { type: 'ready' }
  | { type: 'stage'; stage: BuildStage }
  | { type: 'built'; built: BuiltSpecification }
  | { type: 'failed'; extraction: boolean; message: string };
