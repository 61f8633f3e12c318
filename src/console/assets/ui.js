// Shared pieces of the console's pages: the `html` template tag (htm over Preact), the
// loading hook, and the controls every page uses (labelled fields, tables, problems).
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);

/** Loads `load()` now and whenever `deps` change; `reload` runs it again. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ loading: true, data: undefined, error: undefined });
  const run = useCallback(async () => {
    setState((s) => ({ ...s, loading: true }));
    try {
      setState({ loading: false, data: await load(), error: undefined });
    } catch (error) {
      setState({ loading: false, data: undefined, error });
    }
  }, deps); // the caller names what the load depends on
  useEffect(() => {
    run();
  }, [run]);
  return { ...state, reload: run };
}

/** A problem (application/problem+json) or any error, where it happened: title, detail and each path. */
export function Problem({ error }) {
  if (!error) return null;
  const problem = error.problem ?? { title: error.message ?? String(error) };
  const errors = Array.isArray(problem.errors) ? problem.errors : [];
  return html`<div class="problem" role="alert">
    <strong>${problem.title ?? 'Something went wrong'}${error.status ? ` (${error.status})` : ''}</strong>
    ${problem.detail && problem.detail !== problem.title ? html`<p>${problem.detail}</p>` : null}
    ${errors.length > 0
      ? html`<ul>${errors.map((e) => html`<li><code>${e.path ?? ''}</code> ${e.message ?? ''}</li>`)}</ul>`
      : null}
  </div>`;
}

/** The messages of a problem that name `path` (or start with it), for showing beside a field. */
export function messagesAt(error, path) {
  const errors = error?.problem?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.filter((e) => typeof e.path === 'string' && (e.path === path || e.path.startsWith(`${path}/`))).map((e) => e.message);
}

let nextId = 0;
/** A labelled input; `error` (messages) shown under it and tied to it for screen readers. */
export function Field({ label, value, onInput, type = 'text', name, required, errors = [], placeholder, autocomplete, options, disabled }) {
  const [id] = useState(() => `f${++nextId}`);
  const describedBy = errors.length > 0 ? `${id}-e` : undefined;
  const common = { id, name, required, disabled, 'aria-invalid': errors.length > 0 ? 'true' : undefined, 'aria-describedby': describedBy };
  let control;
  if (options) {
    control = html`<select ...${common} value=${value} onChange=${(e) => onInput(e.currentTarget.value)}>
      ${options.map((o) => html`<option value=${o.value ?? o}>${o.label ?? o}</option>`)}
    </select>`;
  } else if (type === 'textarea') {
    control = html`<textarea ...${common} rows="4" value=${value} placeholder=${placeholder} onInput=${(e) => onInput(e.currentTarget.value)}></textarea>`;
  } else if (type === 'checkbox') {
    control = html`<input ...${common} type="checkbox" checked=${value} onChange=${(e) => onInput(e.currentTarget.checked)} />`;
  } else {
    control = html`<input ...${common} type=${type} value=${value} placeholder=${placeholder} autocomplete=${autocomplete}
      onInput=${(e) => onInput(e.currentTarget.value)} />`;
  }
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${control}
    ${errors.length > 0 ? html`<div class="field-error" id=${describedBy}>${errors.join(' ')}</div>` : null}
  </div>`;
}

/** A table with a caption; `rows` of cells (strings or elements). */
export function Table({ caption, head, rows, empty = 'Nothing here yet.' }) {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap"><table>
    <caption>${caption}</caption>
    <thead><tr>${head.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

/** Tabs as links (each tab is an address, so the back button and deep links work). */
export function Tabs({ label, tabs, current }) {
  return html`<nav class="tabs" aria-label=${label}>
    ${tabs.map((t) => html`<a href=${t.href} aria-current=${t.id === current ? 'page' : undefined}>${t.label}</a>`)}
  </nav>`;
}

export function Loading({ what = 'Loading' }) {
  return html`<p class="loading" role="status">${what}…</p>`;
}

export function when(value) {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/** Runs `action`, keeping its error for the form that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  const run = useCallback(async (action) => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}
