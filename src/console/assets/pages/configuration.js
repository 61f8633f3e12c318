// Variables and secrets of a project or an application (DESIGN §11). Secrets are write-only:
// their values are never shown, only when and by whom they were last set.
import { useState } from 'preact/hooks';
import { Field, html, Problem, Table, useAction, useLoad, when } from '../ui.js';

export function Configuration({ api, owner, readOnly }) {
  return html`<h2>Variables</h2>
    <${Values} api=${api} owner=${owner} kind="variables" readOnly=${readOnly} />
    <h2>Secrets</h2>
    <p class="hint">A secret's value is encrypted at rest and never shown again; set it anew to replace it.</p>
    <${Values} api=${api} owner=${owner} kind="secrets" readOnly=${readOnly} />`;
}

function Values({ api, owner, kind, readOnly }) {
  const values = useLoad(() => api.get(`${owner}/${kind}?limit=100`), [owner, kind]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const save = useAction();
  const remove = useAction();
  const secret = kind === 'secrets';

  async function submit(event) {
    event.preventDefault();
    const saved = await save.run(() => api.put(`${owner}/${kind}/${encodeURIComponent(name.trim())}`, { value }));
    if (saved !== undefined) {
      setName('');
      setValue('');
      values.reload();
    }
  }

  async function drop(item) {
    if (!confirm(`Delete the ${secret ? 'secret' : 'variable'} ${item.name}?`)) return;
    await remove.run(() => api.delete(`${owner}/${kind}/${encodeURIComponent(item.name)}`));
    values.reload();
  }

  return html`<${Problem} error=${values.error ?? remove.error} />
    <${Table}
      caption=${secret ? 'Secrets' : 'Variables'}
      head=${secret ? ['Name', 'Version', 'Updated', ''] : ['Name', 'Value', 'Updated', '']}
      rows=${(values.data?.items ?? []).map((item) => [
        html`<code>${item.name}</code>`,
        secret ? String(item.version) : item.value,
        when(item.updatedAt),
        readOnly ? '' : html`<button type="button" class="danger small" onClick=${() => drop(item)} aria-label=${`Delete ${item.name}`}>Delete</button>`,
      ])}
      empty=${secret ? 'No secrets.' : 'No variables.'}
    />
    ${readOnly
      ? null
      : html`<form class="inline" onSubmit=${submit} aria-label=${secret ? 'Set a secret' : 'Set a variable'}>
          <${Field} label=${secret ? 'Secret name' : 'Variable name'} name=${`${kind}-name`} value=${name} onInput=${setName} required />
          <${Field} label="Value" name=${`${kind}-value`} type=${secret ? 'password' : 'text'} value=${value} onInput=${setValue} required autocomplete="off" />
          <button type="submit" disabled=${save.busy}>Set</button>
        </form>`}
    <${Problem} error=${save.error} />`;
}
