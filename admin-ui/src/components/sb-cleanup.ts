import { localized, msg } from '@lit/localize';
import { Task, TaskStatus } from '@lit/task';
import { html, LitElement } from 'lit';
import { customElement } from 'lit/decorators.js';
import { call } from '../api.js';
import { renderLoad } from '../load-state.js';
import { shared } from '../styles/shared.js';
import './sb-cleanup-status.js';

/** Cleanup health: pending and failed deletion jobs, the last error and the last completion. */
@localized()
@customElement('sb-cleanup')
export class SbCleanup extends LitElement {
  static override styles = [shared];

  private readonly task = new Task(this, { task: () => call('getCleanup'), args: () => [] });

  override render() {
    return html`<div class="toolbar">
        <h1>${msg('Cleanup')}</h1>
        <button type="button" @click=${() => this.task.run()} ?disabled=${this.task.status === TaskStatus.PENDING}>${msg('Refresh')}</button>
      </div>
      <p class="muted">
        ${msg('Retention deletes the oldest messages and files beyond the limits, and everything beyond a lowered limit.')}
      </p>
      ${renderLoad(
        this.task,
        () => msg('The cleanup status could not be loaded.'),
        (status) => html`<sb-cleanup-status .status=${status}></sb-cleanup-status>`,
      )}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-cleanup': SbCleanup;
  }
}
