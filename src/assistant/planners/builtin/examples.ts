/** Three requests this application would understand, made from its own models and fields (for a refusal). */
import pluralize from 'pluralize';
import type { AppDefinition, Model } from '../../../definition/schema.ts';
import { wordsOf } from './names.ts';

const plural = (model: Pick<Model, 'name'>) => pluralize(wordsOf(model.name).join(' '));
const words = (name: string) => wordsOf(name).join(' ');

export function examplesFor(def: AppDefinition): string[] {
  const models = def.models.filter((m) => m.id !== def.userModelId);
  if (models.length === 0) return [];
  // The model with the most fields first: the app's main subject.
  const [main, other = main] = [...models].sort((a, b) => b.fields.length - a.fields.length || a.name.localeCompare(b.name));
  const text = main.fields.find((f) => f.to === 'p_TEXT' && f.min === 0) ?? main.fields.find((f) => f.to === 'p_TEXT');
  const examples = [`add a rating (1 to 5 stars) to ${plural(main)}`];
  examples.push(text ? `make the ${words(text.name)} of ${plural(main)} required` : `add a required note to ${plural(main)}`);
  examples.push(other !== main ? `anyone can read ${plural(other)}` : `when a ${words(main.name)} is created, emit the ${wordsOf(main.name).join('-')}-created event`);
  return examples;
}
