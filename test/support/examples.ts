import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
/** The examples the repository ships: examples/ at its root. */
export const EXAMPLES_DIR = join(here, '..', '..', 'examples');

export interface ExampleApp {
  name: string;
  scode: Record<string, unknown> & { models: Array<Record<string, unknown>> };
}

export function loadExample(name: string): ExampleApp {
  return JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.app.json`), 'utf8')) as ExampleApp;
}

/** A fresh deep copy of the to-do example's definition. */
export function todoScode(): ExampleApp['scode'] {
  return structuredClone(loadExample('todo').scode);
}
