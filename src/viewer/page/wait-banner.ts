/**
 * The banner of a run that waits for a signal: what it waits for and the schema of the value, and,
 * when the viewer allows signals (decision 0081), a form that sends one. The banner is drawn again
 * only when what it shows changes, so a batch of tree changes does not wipe what is being typed.
 */
import type { SignalStatus } from '../stream-messages.js';
import { SIGNAL_PATH, TOKEN_HEADER, TOKEN_META } from '../signal-names.js';
import type { ViewerWait } from '../viewer-wait.js';
import { add, byId, el } from './dom.js';
import { pretty, time } from './format.js';
import { schemaForm } from './schema-form.js';

const CLOSED: SignalStatus = { open: false, answered: null };
let drawn = '';
/** An answer this page got before the server's batch says so. */
let answeredHere: { readonly key: string; readonly message: string } | null = null;

/** The token this page was served with; none when the viewer does not allow signals. */
function token(): string | null {
  return document.querySelector('meta[name="' + TOKEN_META + '"]')?.getAttribute('content') ?? null;
}

function waitKey(wait: ViewerWait): string {
  return JSON.stringify([wait.name, wait.since, wait.timeoutAt, wait.schema]);
}

export function showWait(wait: ViewerWait | null, signals: SignalStatus = CLOSED): void {
  const box = byId('wait');
  if (!wait) {
    drawn = '';
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const key = waitKey(wait);
  const answered = signals.answered ?? (answeredHere?.key === key ? answeredHere.message : null);
  const state = JSON.stringify([key, signals.open && token() !== null, answered]);
  if (state === drawn) return;
  drawn = state;
  const line = el(
    'div',
    '',
    '\u23F8 Waiting for signal \u201C' + wait.name + '\u201D since ' + time(wait.since) + (typeof wait.timeoutAt === 'number' ? ' (times out at ' + time(wait.timeoutAt) + ')' : ''),
  );
  line.id = 'wait-line';
  const out: HTMLElement[] = [line];
  if (wait.schema !== undefined) {
    const schema = el('pre', '', pretty(wait.schema));
    schema.id = 'wait-schema';
    out.push(el('div', 'muted', 'the signal\u2019s value must fit this schema'), schema);
  }
  const sendToken = signals.open ? token() : null;
  if (answered !== null) {
    const done = el('div', 'signal-answered', '\u2713 ' + answered);
    done.id = 'signal-answered';
    out.push(done);
  } else if (sendToken !== null) {
    out.push(signalForm(wait, key, sendToken));
  }
  box.replaceChildren(...out);
  box.hidden = false;
}

function signalForm(wait: ViewerWait, key: string, sendToken: string): HTMLFormElement {
  const form = el('form');
  form.id = 'signal-form';
  const fields = schemaForm(wait.schema);
  const button = el('button', '', 'Send \u201C' + wait.name + '\u201D');
  button.type = 'submit';
  button.id = 'signal-send';
  const result = el('div', 'signal-result');
  result.id = 'signal-result';
  add(form, fields.element, add(el('div', 'signal-actions'), button, result));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = fields.read();
    if (value instanceof Error) {
      result.className = 'signal-result error';
      result.textContent = value.message;
      return;
    }
    button.disabled = true;
    result.className = 'signal-result';
    result.textContent = 'Sending\u2026';
    fetch(SIGNAL_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: sendToken },
      body: JSON.stringify({ name: wait.name, value }),
    })
      .then((res) => res.json().catch(() => ({ error: 'The viewer answered ' + res.status + '.' })) as Promise<{ message?: string; error?: string }>)
      .then((answer) => {
        if (typeof answer.message === 'string') {
          answeredHere = { key, message: answer.message };
          showWait(wait, { open: true, answered: answer.message });
          return;
        }
        button.disabled = false;
        result.className = 'signal-result error';
        result.textContent = answer.error ?? 'The viewer refused the signal.';
      })
      .catch(() => {
        button.disabled = false;
        result.className = 'signal-result error';
        result.textContent = 'The viewer could not be reached: is it still running?';
      });
  });
  return form;
}
