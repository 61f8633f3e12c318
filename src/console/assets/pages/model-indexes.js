// A model's unique values in the model editor: the unique indexes it has (each removable) and a
// form ticking one or several fields that must be unique together. Saved as the model PATCH's
// `indexes` member (the whole list); the new version refuses duplicate writes once published.
import { useState } from 'preact/hooks';
import { html, Problem, useAction } from '../ui.js';

/** Fields that can carry an index here: stored, one value, not computed (the server checks the rest). */
function indexable(model) {
  return model.fields.filter((f) => f.max === 1 && f.computed === undefined && (!f.to.startsWith('urn:') || f.relationshipOwner !== false));
}

export function UniqueIndexes({ api, app, model, readOnly, onChange }) {
  const [picked, setPicked] = useState([]);
  const save = useAction();
  const indexes = model.indexes ?? [];
  const nameOf = (id) => model.fields.find((f) => f.id === id)?.name ?? id;

  async function store(next) {
    const done = await save.run(() => api.patch(`/applications/${app.id}/models/${encodeURIComponent(model.id)}`, { indexes: next }));
    if (done) {
      setPicked([]);
      onChange();
    }
  }
  function submit(event) {
    event.preventDefault();
    // In definition order, so the same choice is always the same index.
    const fields = model.fields.map((f) => f.id).filter((id) => picked.includes(id));
    if (fields.length > 0) void store([...indexes, { fields, unique: true }]);
  }
  const toggle = (id, on) => setPicked(on ? [...picked, id] : picked.filter((p) => p !== id));
  const unique = indexes.map((index, k) => ({ index, k })).filter(({ index }) => index.unique === true);

  return html`<form class="unique-indexes" onSubmit=${submit} aria-label=${`Unique values of ${model.name}`}>
    <h4>Unique values</h4>
    ${unique.length === 0
      ? html`<p class="hint">No field of ${model.name} is unique.</p>`
      : html`<ul class="indexes">
          ${unique.map(
            ({ index, k }) => html`<li>
              <span>${index.fields.map(nameOf).join(' + ')}</span>
              ${readOnly
                ? null
                : html`<button type="button" class="small" disabled=${save.busy} aria-label=${`Remove unique ${index.fields.map(nameOf).join(' + ')}`}
                    onClick=${() => store(indexes.filter((_, j) => j !== k))}>Remove</button>`}
            </li>`,
          )}
        </ul>`}
    ${readOnly
      ? null
      : html`<fieldset class="choice">
            <legend>Make unique (together)</legend>
            ${indexable(model).map(
              (f) => html`<label><input type="checkbox" name="unique" value=${f.id} checked=${picked.includes(f.id)}
                onChange=${(e) => toggle(f.id, e.currentTarget.checked)} /> ${f.name}</label>`,
            )}
          </fieldset>
          <button type="submit" class="small" disabled=${save.busy || picked.length === 0}>Make unique</button>`}
    ${save.error ? html`<${Problem} error=${save.error} />` : null}
  </form>`;
}
