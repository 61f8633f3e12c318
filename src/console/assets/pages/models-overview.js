// Every model of an application on one screen: its fields (how many, and their types in words), its
// relationships (to which model, one or many) and who may read it by default; a model's name opens
// its editor below.
import { html } from '../ui.js';
import { relationshipsOf, typeLabel } from '../types.js';

export function ModelsOverview({ app, current, onPick }) {
  const models = app.scode.models;
  const pick = (model) => {
    onPick(model.id);
    // The editor is below the overview: bring it into view and give it the focus.
    setTimeout(() => document.getElementById('model-editor')?.focus?.(), 0);
  };
  return html`<div class="table-wrap models-overview"><table>
    <caption>${models.length} models, ${models.reduce((n, m) => n + relationshipsOf(models, m).length, 0)} relationships</caption>
    <thead><tr><th scope="col">Model</th><th scope="col">Fields</th><th scope="col">Relationships</th></tr></thead>
    <tbody>
      ${models.map((model) => {
        const relations = relationshipsOf(models, model);
        const plain = model.fields.filter((f) => !relations.some((r) => r.field === f));
        return html`<tr aria-current=${model.id === current ? 'true' : undefined}>
          <th scope="row">
            <button type="button" class="link" onClick=${() => pick(model)}>${model.name}</button>
            ${model.id === app.scode.userModelId ? html` <span class="tag">users</span>` : null}
          </th>
          <td><span class="count">${model.fields.length}</span>
            <span class="types">${plain.slice(0, 6).map((f) => `${f.name}: ${typeLabel(models, f)}`).join(', ')}${plain.length > 6 ? ', …' : ''}</span></td>
          <td>${relations.length === 0
            ? '—'
            : html`<ul class="relations">${relations.map((r) => html`<li>${r.field.name} → ${r.many ? 'many ' : ''}<button type="button" class="link" onClick=${() => pick(r.target)}>${r.target.name}</button></li>`)}</ul>`}</td>
        </tr>`;
      })}
    </tbody>
  </table></div>`;
}
