// The decoder page: pasted IDs decoded by the core (snowflake-c/wasm,
// compiled to WebAssembly) into a table of time and fields. The input lives
// in the address's fragment, so that a shared link shows the same table.
import { Layout, decode, formatId, parseId, presets } from './lib/browser.mjs';

const ENCODINGS = ['dec', 'hex', 'base32', 'base36', 'base58', 'base62'];
// Fixed widths of the string forms, the core's (formatId's padded output):
// in `auto`, a token is read in an encoding other than decimal only at that
// width, and only when no other encoding of that width reads it too.
const WIDTH = Object.fromEntries(
  ENCODINGS.filter((encoding) => encoding !== 'dec').map((encoding) => [
    encoding,
    formatId(0n, encoding).length,
  ]),
);
const CUSTOM = 'custom';

const $ = (id) => document.getElementById(id);
const form = {
  ids: $('ids'),
  layout: $('layout'),
  spec: $('spec'),
  epoch: $('epoch'),
  encoding: $('encoding'),
};

/** The IDs of the text: separated by blanks, commas or lines. */
function splitIds(text) {
  return text.split(/[\s,]+/).filter((token) => token.length > 0);
}

/** The encoding `auto` reads a token in, or an Error saying why none. */
function detectEncoding(token) {
  if (/^[0-9]+$/.test(token)) return 'dec';
  const fits = Object.keys(WIDTH).filter((encoding) => {
    if (token.length !== WIDTH[encoding]) return false;
    try {
      parseId(token, encoding);
      return true;
    } catch {
      return false;
    }
  });
  if (fits.length === 1) return fits[0];
  if (fits.length === 0) {
    const widths = Object.entries(WIDTH).map(([encoding, width]) => `${encoding} (${width})`);
    return new Error(
      `'${token}' is not decimal, nor a fixed-width ${widths.join(', ')} ID: choose its encoding`,
    );
  }
  return new Error(`'${token}' reads as ${fits.join(' or ')}: choose its encoding`);
}

function readState() {
  const params = new URLSearchParams(location.hash.slice(1));
  return {
    ids: params.get('ids') ?? '',
    layout: params.get('spec') !== null ? CUSTOM : (params.get('preset') ?? 'twitter'),
    spec: params.get('spec') ?? '',
    epoch: params.get('epoch') ?? '',
    encoding: ENCODINGS.includes(params.get('enc')) ? params.get('enc') : 'auto',
  };
}

function writeState(state) {
  const params = new URLSearchParams();
  if (state.layout === CUSTOM) {
    params.set('spec', state.spec);
    params.set('epoch', state.epoch);
  } else {
    params.set('preset', state.layout);
  }
  if (state.encoding !== 'auto') params.set('enc', state.encoding);
  params.set('ids', state.ids);
  history.replaceState(null, '', `#${params}`);
}

function formState() {
  return {
    ids: form.ids.value,
    layout: form.layout.value,
    spec: form.spec.value.trim(),
    epoch: form.epoch.value.trim(),
    encoding: form.encoding.value,
  };
}

function fillForm(state) {
  form.ids.value = state.ids;
  form.layout.value = [...form.layout.options].some((o) => o.value === state.layout)
    ? state.layout
    : 'twitter';
  form.spec.value = state.spec;
  form.epoch.value = state.epoch;
  form.encoding.value = state.encoding;
}

const localTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hour12: false,
  timeZoneName: 'short',
});

function cell(tag, text, key) {
  const element = document.createElement(tag);
  element.textContent = text;
  if (key !== undefined) element.dataset.key = key;
  return element;
}

/** One row of the table: the token's parts, or the error in its place. */
function decodeRow(token, index, layout, encoding, fieldNames) {
  const row = document.createElement('tr');
  row.append(cell('td', String(index + 1)), cell('td', token, 'input'));
  const used = encoding === 'auto' ? detectEncoding(token) : encoding;
  try {
    if (used instanceof Error) throw used;
    const parts = decode(token, { layout, encoding: used });
    row.dataset.status = 'ok';
    row.append(
      cell('td', used, 'encoding'),
      cell('td', String(parts.id), 'id'),
      cell('td', parts.time, 'time'),
      cell('td', localTime.format(new Date(parts.timeMs)), 'local'),
    );
    for (const name of fieldNames) row.append(cell('td', String(parts.fields[name]), name));
  } catch (error) {
    row.dataset.status = 'error';
    const message = cell('td', error.message, 'error');
    message.colSpan = 4 + fieldNames.length;
    if (error.code !== undefined) message.dataset.kind = error.code;
    message.className = 'error';
    row.append(message);
  }
  return row;
}

function render() {
  const state = formState();
  const custom = state.layout === CUSTOM;
  $('custom-spec').hidden = !custom;
  $('custom-epoch').hidden = !custom;
  writeState(state);

  const thead = $('results').tHead;
  const tbody = $('results').tBodies[0];
  thead.replaceChildren();
  tbody.replaceChildren();
  const summary = $('summary');
  const facts = $('layout-facts');
  let layout;
  try {
    layout = custom ? Layout.parse(state.spec, state.epoch) : Layout.preset(state.layout);
  } catch (error) {
    facts.textContent = '';
    summary.textContent = `Layout: ${error.message}`;
    summary.className = 'error';
    return;
  }
  facts.textContent = `${layout.spec}, epoch ${new Date(layout.epochMs).toISOString()}`;
  const fieldNames = layout.fields.filter((f) => f.kind !== 'time').map((f) => f.name);
  const head = document.createElement('tr');
  for (const title of ['#', 'Input', 'Read as', 'ID', 'Time (UTC)', 'Local time', ...fieldNames]) {
    const th = cell('th', title);
    th.scope = 'col';
    head.append(th);
  }
  thead.append(head);

  const tokens = splitIds(state.ids);
  const rows = tokens.map((t, i) => decodeRow(t, i, layout, state.encoding, fieldNames));
  tbody.append(...rows);
  const bad = rows.filter((r) => r.dataset.status === 'error').length;
  summary.className = bad > 0 ? 'error' : '';
  summary.textContent =
    tokens.length === 0
      ? 'Paste IDs above to decode them.'
      : `${tokens.length} ID${tokens.length === 1 ? '' : 's'}: ${tokens.length - bad} decoded` +
        (bad > 0 ? `, ${bad} with an error` : '');
}

function fillPresets() {
  for (const preset of presets()) {
    const option = document.createElement('option');
    option.value = preset.name;
    option.textContent = `${preset.name} (${preset.spec})`;
    form.layout.append(option);
  }
  const custom = document.createElement('option');
  custom.value = CUSTOM;
  custom.textContent = 'custom layout…';
  form.layout.append(custom);
}

async function offline() {
  const note = $('offline');
  if (!('serviceWorker' in navigator) || !window.isSecureContext) {
    note.textContent =
      'This page needs no network once loaded; it is not cached for offline use here.';
    return;
  }
  try {
    await navigator.serviceWorker.register('sw.js');
    await navigator.serviceWorker.ready;
    note.textContent = 'Cached for offline use: it opens with no network.';
    document.body.dataset.offline = 'ready';
  } catch (error) {
    note.textContent = `Not cached for offline use (${error.message}).`;
  }
}

fillPresets();
fillForm(readState());
render();
for (const element of Object.values(form)) element.addEventListener('input', render);
window.addEventListener('hashchange', () => {
  fillForm(readState());
  render();
});
$('form').addEventListener('submit', (event) => event.preventDefault());
document.body.dataset.ready = 'true';
offline();
