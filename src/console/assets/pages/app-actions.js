// Actions as flow diagrams of their effects (start → next, with each branch a flow.if or a
// flow.switch names), and the triggers that start them.
import { html, Table } from '../ui.js';

/** The effects in the order the flow reaches them from the start, then the unreachable ones. */
function ordered(action) {
  const byId = new Map(action.effects.map((e) => [e.actionEffectId, e]));
  const seen = new Set();
  const order = [];
  const visit = (id) => {
    if (!id || seen.has(id) || !byId.has(id)) return;
    seen.add(id);
    const effect = byId.get(id);
    order.push(effect);
    visit(effect.next);
    for (const target of branches(effect)) visit(target);
  };
  visit(action.startEffectId);
  for (const effect of action.effects) if (!seen.has(effect.actionEffectId)) order.push(effect);
  return order;
}

/** The other effects an effect may go to besides `next` (flow.if's else, flow.switch's cases). */
function branches(effect) {
  const params = effect.params ?? {};
  const targets = [];
  if (typeof params.else === 'string') targets.push(params.else);
  if (params.cases && typeof params.cases === 'object') for (const c of Object.values(params.cases)) if (typeof c === 'string') targets.push(c);
  return targets;
}

function EffectBox({ effect, isStart }) {
  const params = Object.entries(effect.params ?? {}).filter(([k]) => k !== 'else');
  const binds = Object.entries(effect.bindParams ?? {});
  return html`<li class="effect" id=${`effect-${effect.actionEffectId}`}>
    <div class="effect-head"><code>${effect.actionEffectId}</code> <span class="tag">${effect.effect}</span>${isStart ? html` <span class="tag start">start</span>` : null}</div>
    ${params.length + binds.length > 0
      ? html`<dl>${params.map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`)}
          ${binds.map(([k, v]) => html`<dt>${k}</dt><dd><code>${v}</code></dd>`)}</dl>`
      : null}
    <div class="arrows">
      ${effect.next ? html`<span>next → <a href=${`#effect-${effect.next}`} onClick=${(e) => { e.preventDefault(); document.getElementById(`effect-${effect.next}`)?.scrollIntoView(); }}>${effect.next}</a></span>` : html`<span>end</span>`}
      ${branches(effect).map((b) => html` <span>else → <code>${b}</code></span>`)}
    </div>
  </li>`;
}

export function Actions({ app }) {
  const actions = app.scode.actions ?? [];
  if (actions.length === 0) return html`<h2>Actions</h2><p class="empty">No actions.</p>`;
  return html`<h2>Actions</h2>
    ${actions.map(
      (action) => html`<section class="card" aria-label=${`Action ${action.id}`}>
        <h3><code>${action.id}</code></h3>
        <ol class="flow">${ordered(action).map((e) => html`<${EffectBox} effect=${e} isStart=${e.actionEffectId === action.startEffectId} />`)}</ol>
        ${action.bindReturnValue ? html`<p>Returns <code>${action.bindReturnValue}</code></p>` : null}
      </section>`,
    )}`;
}

function describeTrigger(t) {
  if (t.type === 'http') return `${t.method} ${t.path}`;
  if (t.type === 'event') return `on ${t.eventName}`;
  if (t.type === 'schedule' || t.cron) return `every ${t.cron ?? t.schedule ?? ''}`;
  return t.type;
}

export function Triggers({ app }) {
  const triggers = app.scode.triggers ?? [];
  return html`<h2>Triggers</h2>
    <${Table}
      caption="Triggers and the actions they start"
      head=${['Trigger', 'When', 'Action', 'Checks']}
      rows=${triggers.map((t) => [html`<code>${t.trigger.id}</code>`, describeTrigger(t.trigger), html`<code>${t.actionId}</code>`, (t.validation ?? []).join('; ') || '—'])}
      empty="No triggers."
    />`;
}
