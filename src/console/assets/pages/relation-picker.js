// Relationships in the data browser: which field of a collection points at which collection, the
// related record's display value (its name, title, …) and a picker that searches the related
// collection by that value, so a builder types "AC/DC", not a uuid.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../ui.js';

const DISPLAY_NAMES = ['name', 'title', 'label', 'displayName', 'fullName', 'companyName', 'lastName', 'email', 'city', 'country', 'description'];

/** The field shown for a record of `model`: a name-like text field, else its first text field. */
export function displayFieldOf(model) {
  const text = model.fields.filter((f) => f.to === 'p_TEXT' && f.max === 1);
  for (const name of DISPLAY_NAMES) {
    const found = text.find((f) => f.name === name) ?? text.find((f) => f.name.toLowerCase().endsWith(name.toLowerCase()));
    if (found) return found.name;
  }
  return text[0]?.name ?? 'id';
}

/**
 * For the collection of `modelName`: its relationship fields by name, each with the related
 * collection (from `resources`, whose `model` is the schema name of their records) and display field.
 */
export function relationsOf(app, resources, modelName) {
  const models = app.scode.models;
  const model = models.find((m) => m.name.replace(/[^A-Za-z0-9_]+/g, '_') === modelName);
  const out = {};
  for (const field of model?.fields ?? []) {
    const target = models.find((m) => m.id === field.to);
    if (!target) continue;
    const resource = resources.find((r) => r.model === target.name.replace(/[^A-Za-z0-9_]+/g, '_'));
    if (resource) out[field.name] = { resource: resource.resource, display: displayFieldOf(target), many: field.max === null || field.max > 1, target: target.name };
  }
  return out;
}

/** A related value as a person reads it: the related record's display value, or how many for a list. */
export function relatedText(value, relation) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : `${value.length} ${relation.target}${value.length === 1 ? '' : ' records'}`;
  if (typeof value === 'object') return String(value[relation.display] ?? value.id);
  return String(value);
}

/** A to-one relationship input: type part of the related record's display value, pick one of the matches. */
export function RelationPicker({ api, apiUrl, name, relation, value, initialText, onInput, errors = [] }) {
  const [text, setText] = useState(initialText ?? '');
  const [matches, setMatches] = useState([]);
  const [chosen, setChosen] = useState(value ? { id: value, text: initialText ?? value } : null);
  const id = `pick-${name}`;
  useEffect(() => {
    const typed = text.trim();
    if (typed === '' || chosen?.text === text) {
      setMatches([]);
      return undefined;
    }
    let stale = false;
    const timer = setTimeout(async () => {
      const filter = `record.${relation.display}.contains(${JSON.stringify(typed)})`;
      const params = new URLSearchParams({ limit: '8', filter, sort: relation.display });
      try {
        const page = await api.app('GET', apiUrl, `/${relation.resource}?${params}`);
        if (!stale) setMatches(page.items ?? []);
      } catch {
        if (!stale) setMatches([]);
      }
    }, 250);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, relation.resource]);
  function pick(record) {
    const shown = String(record[relation.display] ?? record.id);
    setChosen({ id: record.id, text: shown });
    setText(shown);
    setMatches([]);
    onInput(record.id);
  }
  return html`<div class="field relation-picker">
    <label for=${id}>${name} <span class="hint">(${relation.target}: type its ${relation.display})</span></label>
    <input id=${id} name=${name} value=${text} autocomplete="off" aria-invalid=${errors.length > 0 ? 'true' : undefined}
      aria-describedby=${errors.length > 0 ? `${id}-e` : undefined}
      onInput=${(e) => {
        setText(e.currentTarget.value);
        if (e.currentTarget.value === '') {
          setChosen(null);
          onInput('');
        }
      }} />
    ${matches.length > 0
      ? html`<ul class="matches" aria-label=${`${relation.target} records matching ${text}`}>
          ${matches.map((m) => html`<li><button type="button" class="link" onClick=${() => pick(m)}>${String(m[relation.display] ?? m.id)}</button></li>`)}
        </ul>`
      : null}
    ${chosen ? html`<div class="hint" aria-live="polite">Picked: ${chosen.text}</div>` : null}
    ${errors.length > 0 ? html`<div class="field-error" id=${`${id}-e`}>${errors.join(' ')}</div>` : null}
  </div>`;
}
