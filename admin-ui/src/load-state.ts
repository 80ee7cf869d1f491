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
  if (task.status === TaskStatus.ERROR) return renderFailure(what(), task.error, () => task.run());
  if (task.status === TaskStatus.COMPLETE || task.value !== undefined) return complete(task.value as R);
  return renderLoading();
}

/**
 * The same failure for a paged list whose "Show more" appends to what is shown (agents, channels,
 * groups, a channel's messages, the audit log): one Task cannot hold a growing list, so such a
 * view keeps its own loader and shows that loader's failure here, Retry re-running it.
 */
export function renderFailure(what: string, error: unknown, retry: () => unknown) {
  return html`<sb-failure .what=${what} .error=${error} @sb-retry=${retry}></sb-failure>`;
}

export function renderLoading() {
  return html`<p class="muted" role="status">${msg('Loading…')}</p>`;
}

/** A paged list's failed load: what to retry; `null` once a load succeeds. */
export interface LoadFailure {
  error: unknown;
  retry: () => unknown;
}
