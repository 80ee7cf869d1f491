import { msg } from '@lit/localize';
import { type Task, TaskStatus } from '@lit/task';
import { html } from 'lit';
import './components/sb-failure.js';

/**
 * The console's one loading pattern: a view keeps its data in a @lit/task Task and renders it
 * through this, so every view shows the same three states: "Loading…" the first time (a refresh
 * keeps the data on screen), the failure with the request ID and a Retry button, or the data.
 */
export function renderLoad<R>(task: Task<readonly unknown[], R>, what: () => string, complete: (value: R) => unknown) {
  if (task.status === TaskStatus.ERROR) {
    return html`<sb-failure .what=${what()} .error=${task.error} @sb-retry=${() => task.run()}></sb-failure>`;
  }
  if (task.status === TaskStatus.COMPLETE || task.value !== undefined) return complete(task.value as R);
  return html`<p class="muted" role="status">${msg('Loading…')}</p>`;
}
