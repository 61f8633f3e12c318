// The data of a served version, as its administrator (a management credential bypasses the
// rules): list with filter and sort, create, edit, delete — through the version's own API,
// with the forms built from its OpenAPI document.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, useAction, useLoad } from '../ui.js';
import { displayFieldOf, RelationPicker, relatedText, relationsOf } from './relation-picker.js';

/** The version's resources: each collection path with its create and update schemas. */
function resourcesOf(doc) {
  const schemas = doc.components?.schemas ?? {};
  const deref = (s) => (s?.$ref ? schemas[s.$ref.split('/').pop()] : s);
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!/^\/[A-Za-z0-9_]+$/.test(path) || !item.get || !item.post) continue;
    const createSchema = item.post.requestBody?.content?.['application/json']?.schema;
    const create = deref(createSchema);
    // `#/components/schemas/AlbumCreate`: the collection's records are Albums
    const model = createSchema?.$ref ? createSchema.$ref.split('/').pop().replace(/Create$/, '') : undefined;
    const update = deref(doc.paths[`${path}/{id}`]?.patch?.requestBody?.content?.['application/json']?.schema);
    if (!create?.properties) continue;
    out.push({ resource: path.slice(1), model, create, update: update ?? create });
  }
  return out;
}

function kindOf(schema) {
  const s = schema?.anyOf ? schema.anyOf.find((x) => x.type !== 'null') ?? {} : schema ?? {};
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (s.enum) return { kind: 'enum', options: ['', ...s.enum] };
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'number' || type === 'integer') return { kind: 'number' };
  if (type === 'string') return { kind: s.format === 'date-time' ? 'datetime' : 'text' };
  return { kind: 'json' };
}

function toInput(value, kind) {
  if (value === undefined || value === null) return kind === 'boolean' ? false : '';
  if (kind === 'json') return JSON.stringify(value);
  return kind === 'boolean' ? Boolean(value) : String(value);
}

function fromInput(text, kind) {
  if (kind === 'boolean') return Boolean(text);
  if (text === '') return undefined;
  if (kind === 'number') return Number(text);
  if (kind === 'json') return JSON.parse(text);
  return text;
}

function RecordForm({ api, apiUrl, relations = {}, schema, record, label, onSubmit, busy, error }) {
  const fields = Object.entries(schema.properties).map(([name, s]) => (relations[name] && !relations[name].many ? { name, kind: 'relation' } : { name, ...kindOf(s) }));
  const [values, setValues] = useState(() => Object.fromEntries(fields.map((f) => [f.name, toInput(record?.[f.name] && typeof record[f.name] === 'object' && record[f.name].id ? record[f.name].id : record?.[f.name], f.kind)])));
  function submit(event) {
    event.preventDefault();
    const body = {};
    for (const f of fields) {
      const value = fromInput(values[f.name], f.kind);
      if (value !== undefined) body[f.name] = value;
    }
    onSubmit(body);
  }
  const errorsAt = (name) => (error?.problem?.errors ?? []).filter((e) => e.path === `/${name}` || String(e.path).startsWith(`/${name}/`)).map((e) => e.message);
  return html`<form class="card record-form" onSubmit=${submit} aria-label=${label}>
    ${fields.map((f) =>
      f.kind === 'relation'
        ? html`<${RelationPicker} api=${api} apiUrl=${apiUrl} name=${f.name} relation=${relations[f.name]} value=${values[f.name]}
            initialText=${record?.[f.name] ? relatedText(record[f.name], relations[f.name]) : ''} errors=${errorsAt(f.name)}
            onInput=${(v) => setValues((old) => ({ ...old, [f.name]: v }))} />`
        : html`<${Field} label=${f.name} name=${f.name} value=${values[f.name]} options=${f.kind === 'enum' ? f.options : undefined}
        type=${f.kind === 'boolean' ? 'checkbox' : f.kind === 'number' ? 'number' : 'text'} errors=${errorsAt(f.name)}
        onInput=${(v) => setValues({ ...values, [f.name]: v })} />`,
    )}
    <button type="submit" disabled=${busy}>${label}</button>
    ${error && fields.every((f) => errorsAt(f.name).length === 0) ? html`<${Problem} error=${error} />` : null}
  </form>`;
}

/** Filter and sort examples written for this collection: its display field, its first number or date. */
function hintsOf(app, resource) {
  const model = app.scode.models.find((m) => m.name.replace(/[^A-Za-z0-9_]+/g, '_') === resource.model);
  if (!model) return { filter: 'record.name == "…"', sort: '-createdAt' };
  const display = displayFieldOf(model);
  const ordered = model.fields.find((f) => f.max === 1 && ['p_NUMBER', 'p_DATE', 'p_DATE_TIME'].includes(f.to));
  return {
    filter: display === 'id' ? 'record.createdAt > timestamp("2024-01-01T00:00:00Z")' : `record.${display}.contains("…")`,
    sort: [ordered ? `-${ordered.name}` : '-createdAt', display === 'id' ? null : display].filter(Boolean).join(','),
  };
}

function Browser({ api, app, apiUrl, resource, resources, readOnly }) {
  const relations = relationsOf(app, resources, resource.model);
  const hints = hintsOf(app, resource);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState('');
  const [query, setQuery] = useState({ filter: '', sort: '', offset: 0 });
  const [editing, setEditing] = useState(null);
  const [creating, setCreating] = useState(false);
  const page = useLoad(() => {
    const params = new URLSearchParams({ limit: '20', offset: String(query.offset) });
    if (query.filter) params.set('filter', query.filter);
    if (query.sort) params.set('sort', query.sort);
    return api.app('GET', apiUrl, `/${resource.resource}?${params}`);
  }, [apiUrl, resource.resource, query]);
  const save = useAction();
  const remove = useAction();
  const columns = ['id', ...Object.keys(resource.create.properties)];
  const show = (v, column) =>
    relations[column] ? relatedText(v, relations[column]) : v === null || v === undefined ? '—' : typeof v === 'object' ? (v.id ?? JSON.stringify(v)) : String(v);

  async function create(body) {
    if (await save.run(() => api.app('POST', apiUrl, `/${resource.resource}`, body))) {
      setCreating(false);
      page.reload();
    }
  }
  async function update(body) {
    if (await save.run(() => api.app('PATCH', apiUrl, `/${resource.resource}/${editing.id}`, body))) {
      setEditing(null);
      page.reload();
    }
  }
  async function drop(record) {
    if (!confirm(`Delete ${record.id}?`)) return;
    await remove.run(() => api.app('DELETE', apiUrl, `/${resource.resource}/${record.id}`));
    page.reload();
  }

  const total = page.data?.total ?? 0;
  return html`<form class="inline" aria-label="Filter and sort" onSubmit=${(e) => { e.preventDefault(); setQuery({ filter, sort, offset: 0 }); }}>
      <${Field} label="Filter (CEL over record)" name="filter" value=${filter} onInput=${setFilter} placeholder=${hints.filter} />
      <${Field} label="Sort" name="sort" value=${sort} onInput=${setSort} placeholder=${hints.sort} />
      <button type="submit">Apply</button>
    </form>
    ${readOnly ? null : html`<p><button type="button" onClick=${() => { save.setError(undefined); setCreating(!creating); }} aria-expanded=${creating}>New record</button></p>`}
    ${creating ? html`<${RecordForm} api=${api} apiUrl=${apiUrl} relations=${relations} schema=${resource.create} label="Create the record" onSubmit=${create} busy=${save.busy} error=${save.error} />` : null}
    <${Problem} error=${page.error ?? remove.error} />
    ${page.loading && !page.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption=${`${resource.resource}: ${total} records`}
          head=${[...columns, '']}
          rows=${(page.data?.items ?? []).map((r) => [
            ...columns.map((c) => show(r[c], c)),
            readOnly
              ? ''
              : html`<span class="row-actions"><button type="button" class="small" onClick=${() => { save.setError(undefined); setEditing(r); }}>Edit</button>
                  <button type="button" class="small danger" onClick=${() => drop(r)} aria-label=${`Delete ${r.id}`}>Delete</button></span>`,
          ])}
          empty="No records."
        />`}
    <nav class="pager" aria-label="Pages">
      <button type="button" class="small" disabled=${query.offset === 0} onClick=${() => setQuery({ ...query, offset: Math.max(0, query.offset - 20) })}>Previous</button>
      <span>${total === 0 ? 0 : query.offset + 1}–${Math.min(total, query.offset + 20)} of ${total}</span>
      <button type="button" class="small" disabled=${query.offset + 20 >= total} onClick=${() => setQuery({ ...query, offset: query.offset + 20 })}>Next</button>
    </nav>
    ${editing ? html`<${RecordForm} key=${editing.id} api=${api} apiUrl=${apiUrl} relations=${relations} schema=${resource.update} record=${editing} label=${`Save ${editing.id}`} onSubmit=${update} busy=${save.busy} error=${save.error} />` : null}`;
}

export function Data({ api, app, readOnly }) {
  const served = (app.status.deployments ?? []).filter((d) => d.state === 'active' && d.apiUrl);
  const [version, setVersion] = useState(served[served.length - 1]?.serverVersion ?? '');
  const deployment = served.find((d) => d.serverVersion === version) ?? served[served.length - 1];
  const doc = useLoad(() => (deployment ? fetch(deployment.openapiUrl).then((r) => r.json()) : Promise.resolve(null)), [deployment?.openapiUrl]);
  const resources = doc.data ? resourcesOf(doc.data) : [];
  const [chosen, setChosen] = useState('');
  const resource = resources.find((r) => r.resource === chosen) ?? resources[0];
  if (served.length === 0) return html`<h2>Data</h2><p class="empty">Publish a version to browse its data.</p>`;
  return html`<h2>Data</h2>
    <div class="inline">
      <${Field} label="Version" name="dataVersion" value=${deployment.serverVersion} options=${served.map((d) => d.serverVersion)} onInput=${setVersion} />
      ${resources.length > 0 ? html`<${Field} label="Collection" name="collection" value=${resource?.resource} options=${resources.map((r) => r.resource)} onInput=${setChosen} />` : null}
    </div>
    <${Problem} error=${doc.error} />
    ${doc.loading && !doc.data ? html`<${Loading} />` : resource ? html`<${Browser} key=${`${deployment.apiUrl}/${resource.resource}`} api=${api} app=${app} apiUrl=${deployment.apiUrl} resource=${resource} resources=${resources} readOnly=${readOnly} />` : null}`;
}
