// A model's list page: paging, sorting by column headers, a CEL filter box.
import { h, loading, notify, render } from './dom.js';
import { api } from './api.js';
import { displayValue } from './model.js';
import { problemMessage } from './problems.js';

const PAGE_SIZES = [10, 20, 50, 100];
const MAX_COLUMNS = 6;

export function listHref(model, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '' && value !== null) query.set(key, String(value));
  const text = query.toString();
  return `#/${model.resource}${text ? `?${text}` : ''}`;
}

function columnsOf(model) {
  return model.fields.filter((f) => !(f.input === 'relation' && f.many) && f.input !== 'json').slice(0, MAX_COLUMNS);
}

function sortHeader(model, field, params) {
  if (!field.sortable) return h('th', { scope: 'col' }, field.label);
  const current = params.sort || '';
  const state = current === field.name ? 'ascending' : current === `-${field.name}` ? 'descending' : 'none';
  const next = state === 'ascending' ? `-${field.name}` : field.name;
  const arrow = state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : '';
  const label = `Sort by ${field.label} ${state === 'ascending' ? 'descending' : 'ascending'}`;
  return h('th', { scope: 'col', 'aria-sort': state },
    h('a', { href: listHref(model, { ...params, sort: next, offset: 0 }), class: 'sort', 'aria-label': label }, field.label, h('span', { 'aria-hidden': 'true' }, arrow)));
}

function filterForm(model, params) {
  const input = h('input', { id: 'filter', name: 'filter', type: 'search', value: params.filter || '', placeholder: "record.status == 'open'", 'aria-describedby': 'filter-help', class: 'mono' });
  return h('form', { class: 'filter', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    location.hash = listHref(model, { ...params, filter: input.value.trim(), offset: 0 });
  } },
    h('label', { for: 'filter' }, 'Filter'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Apply'),
      params.filter ? h('a', { href: listHref(model, { ...params, filter: '', offset: 0 }), class: 'button secondary' }, 'Clear') : null),
    h('p', { id: 'filter-help', class: 'hint' }, 'A CEL expression over record, e.g. ', h('code', {}, `record.${(model.fields[0] || { name: 'id' }).name} == '…'`), '; combine with && and ||.'));
}

function pager(model, params, page) {
  const limit = Number(params.limit) || 20;
  const offset = page.offset || 0;
  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.items.length;
  const size = h('select', { id: 'page-size', onchange: (e) => { location.hash = listHref(model, { ...params, limit: e.target.value, offset: 0 }); } },
    PAGE_SIZES.map((n) => h('option', { value: n, selected: n === limit }, String(n))));
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('p', { role: 'status' }, `Showing ${first}–${last} of ${page.total}`),
    h('div', { class: 'row' },
      offset > 0 ? h('a', { class: 'button secondary', href: listHref(model, { ...params, offset: Math.max(0, offset - limit) }) }, '← Previous') : null,
      last < page.total ? h('a', { class: 'button secondary', href: listHref(model, { ...params, offset: offset + limit }) }, 'Next →') : null,
      h('label', { for: 'page-size' }, 'Per page'), size));
}

export async function renderList(model, params) {
  render(h('h1', {}, model.plural), loading());
  const columns = columnsOf(model);
  const limit = Number(params.limit) || 20;
  let page;
  try {
    page = await api.list(model.resource, { limit, offset: Number(params.offset) || 0, sort: params.sort, filter: params.filter });
  } catch (error) {
    render(h('h1', {}, model.plural), filterForm(model, params), h('p', { class: 'message message-error', role: 'alert' }, problemMessage(error)));
    return;
  }
  const rows = page.items.map((record) => h('tr', {},
    columns.map((field, i) => i === 0
      ? h('th', { scope: 'row' }, h('a', { href: `#/${model.resource}/${encodeURIComponent(record.id)}` }, field.input === 'relation' ? displayValue(field, record[field.name]).textContent : displayValue(field, record[field.name])))
      : h('td', { dataset: { label: field.label } }, displayValue(field, record[field.name])))));
  const table = page.items.length === 0
    ? h('p', { class: 'empty-state' }, params.filter ? 'No records match this filter.' : `No ${model.plural.toLowerCase()} yet.`)
    : h('div', { class: 'table-wrap' }, h('table', {}, h('caption', { class: 'visually-hidden' }, `${model.plural}, sortable by column`),
        h('thead', {}, h('tr', {}, columns.map((f) => sortHeader(model, f, params)))), h('tbody', {}, rows)));
  render(
    h('div', { class: 'page-head' }, h('h1', {}, model.plural), h('a', { class: 'button', href: `#/${model.resource}/new` }, `New ${model.label.toLowerCase()}`)),
    filterForm(model, params), table, pager(model, params, page));
  if (params.offset && page.items.length === 0 && page.total > 0) notify('This page is past the end of the list.', 'info');
}
