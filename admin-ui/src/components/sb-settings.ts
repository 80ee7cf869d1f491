import { localized, msg, str } from '@lit/localize';
import { Task } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { type BodyOf, call, type ResponseOf } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatCount } from '../lib/format.js';
import {
  buildSettingsPatch,
  CLAIM_SECONDS_MAX,
  deletesData,
  LIMIT_KEYS,
  LIMIT_KINDS,
  type LimitKey,
  MAX_DELIVERIES_MAX,
} from '../lib/settings-form.js';
import { bytesToMb, type ParseProblem } from '../lib/units.js';
import { limitLabel } from '../limit-labels.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import './sb-cleanup-status.js';
import './sb-confirm.js';
import './sb-metrics-token.js';

type SettingsAnswer = ResponseOf<'getSettings'>;

function limitHint(key: LimitKey): string {
  switch (key) {
    case 'max_body_code_points':
      return msg('Counted in Unicode code points. Longer messages are refused, never cut.');
    case 'max_recipients':
      return msg('How many agents one direct send may address.');
    case 'max_messages_per_channel':
      return msg('Older messages are deleted beyond this, read or not.');
    case 'max_files_per_channel':
      return msg('Older messages with files are deleted beyond this, with their files.');
    case 'max_file_bytes':
      return msg('1 MB = 1,000,000 bytes. The default is 50 MB.');
    case 'max_concurrent_uploads':
      return msg('Uploads beyond this are refused with a retry hint.');
    case 'max_upload_temp_bytes':
      return msg('1 MB = 1,000,000 bytes. Total size of files being received at once.');
    case 'upload_stall_seconds':
      return msg('An upload slower than 1,000 bytes a second over this long is cancelled. The default is 20.');
    case 'claim_seconds':
      return msg('How long a claimed message stays reserved: 1 to 86,400 seconds. The default is 60.');
    case 'max_claim_batch':
      return msg('The most messages one claim may take.');
    case 'max_deliveries':
      return msg(
        'A message claimed this many times without an ACK is parked: claims no longer offer it until an agent asks for parked messages. 0 means no limit.',
      );
    case 'max_page_size':
      return msg('The most items one list page may hold.');
    case 'max_group_members':
      return msg('Members and pending invitations together.');
  }
}

function problemText(key: LimitKey, problem: ParseProblem): string {
  if (problem === 'empty') return msg('Enter a value.');
  if (LIMIT_KINDS[key] === 'attempts' && problem !== 'not_a_number') {
    return msg(str`Enter a whole number from 0 to ${formatCount(MAX_DELIVERIES_MAX, currentLocale())}.`);
  }
  if (LIMIT_KINDS[key] === 'mb') {
    if (problem === 'not_a_number') return msg('Enter a number of MB, such as 50 or 0.5.');
    if (problem === 'not_positive') return msg('Enter at least 0.000001 MB (one byte).');
    return msg('This is too large.');
  }
  if (LIMIT_KINDS[key] === 'seconds' && problem !== 'not_a_number') {
    return msg(str`Enter whole seconds from 1 to ${formatCount(CLAIM_SECONDS_MAX, currentLocale())}.`);
  }
  if (problem === 'not_a_number') return msg('Enter a whole number.');
  if (problem === 'not_positive') return msg('Enter a number of at least 1.');
  return msg('This is too large.');
}

/**
 * The text a field shows for a stored value: MB for sizes (REQ-55), with the decimal mark of the
 * console's language (parseMb reads both marks), and the plain number otherwise.
 */
function shown(key: LimitKey, value: number): string {
  if (LIMIT_KINDS[key] !== 'mb') return String(value);
  const mark = new Intl.NumberFormat(currentLocale()).formatToParts(1.5).find((p) => p.type === 'decimal')?.value;
  return bytesToMb(value).replace('.', mark ?? '.');
}

/** Every global limit (REQ-28, REQ-55), then the settings revision, cleanup state and the metrics token. */
@localized()
@customElement('sb-settings')
export class SbSettings extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        max-width: 44rem;
      }
      .limits {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(19rem, 1fr));
        gap: 0 1.25rem;
      }
      .unit-input {
        display: flex;
        align-items: center;
        gap: 0.4rem;
      }
      .unit-input input {
        max-width: 12rem;
      }
      .facts {
        display: flex;
        gap: 0.75rem;
        margin: 1rem 0 0;
      }
      .facts dt {
        color: var(--sb-muted);
      }
      .facts dd {
        margin: 0;
        font-weight: 600;
      }
    `,
  ];

  /** The first read; saves and the cleanup poll then update `answer` in place. */
  private readonly task = new Task(this, {
    task: async () => {
      const answer = await call('getSettings');
      this.show(answer);
      return answer;
    },
    args: () => [],
  });
  @state() private answer: SettingsAnswer | null = null;
  @state() private typed: Partial<Record<LimitKey, string>> = {};
  @state() private problems: Partial<Record<LimitKey, ParseProblem>> = {};
  @state() private error = '';
  @state() private busy = false;
  @query('sb-confirm') private confirm!: SbConfirm;
  private poll: ReturnType<typeof setTimeout> | undefined;

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.poll);
  }

  private show(answer: SettingsAnswer): void {
    this.answer = answer;
    this.typed = Object.fromEntries(LIMIT_KEYS.map((k) => [k, shown(k, answer.settings[k])]));
    this.problems = {};
    this.watchCleanup();
  }

  /** While cleanup runs after a lowered limit, keep its progress current. */
  private watchCleanup(): void {
    clearTimeout(this.poll);
    if (this.answer?.cleanup.state !== 'running') return;
    this.poll = setTimeout(async () => {
      try {
        const cleanup = await call('getCleanup');
        if (this.answer) this.answer = { ...this.answer, cleanup };
      } catch {
        // A failed poll keeps the last state on screen; the next one may succeed.
      }
      this.watchCleanup();
    }, 2000);
  }

  /**
   * What the server says the patch would delete (POST /admin/settings/preview, from the channels'
   * reported counts), as a sentence; empty when it could not be asked, so the generic warning stands alone.
   */
  private async impact(patch: BodyOf<'previewSettings'>): Promise<string> {
    try {
      const { deletes } = await call('previewSettings', { body: patch });
      const locale = currentLocale();
      const range = (r: { min: number; max: number }) =>
        r.min === r.max ? formatCount(r.min, locale) : `${formatCount(r.min, locale)}–${formatCount(r.max, locale)}`;
      if (deletes.channels === 0) return msg('No stored message or file is beyond the new message and file limits.');
      const messages = range(deletes.messages);
      const files = range(deletes.files);
      const channels = formatCount(deletes.channels, locale);
      return msg(str`${messages} messages and ${files} files in ${channels} channels will be deleted.`);
    } catch {
      return '';
    }
  }

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (!this.answer) return;
    this.error = '';
    const result = buildSettingsPatch(this.answer.settings, this.typed);
    if (!result.ok) {
      this.problems = result.problems;
      await this.updateComplete;
      const first = LIMIT_KEYS.find((k) => result.problems[k]);
      if (first) this.renderRoot.querySelector<HTMLInputElement>(`#${first}`)?.focus();
      return;
    }
    this.problems = {};
    if (Object.keys(result.patch).length === 0) {
      this.error = msg('Nothing changed.');
      return;
    }
    if (deletesData(result.lowered)) {
      const impact = await this.impact(result.patch);
      const ok = await this.confirm.ask({
        heading: msg('Lower limits?'),
        text: `${impact}${impact ? ' ' : ''}${msg(
          'Lowering a limit also deletes the messages and files already stored beyond the new limit. Deleted data cannot be recovered.',
        )}`,
        confirmLabel: msg('Lower and delete'),
        danger: true,
      });
      if (!ok) return;
    }
    this.busy = true;
    try {
      const answer = await call('updateSettings', { body: result.patch });
      this.show(answer);
      toast(this, msg(str`Saved. Settings revision ${answer.settings_revision}.`));
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.busy = false;
    }
  }

  private field(key: LimitKey) {
    const problem = this.problems[key];
    const mb = LIMIT_KINDS[key] === 'mb';
    return html`<div class="field">
      <label for=${key}>${limitLabel(key)}</label>
      <div class="unit-input">
        <input
          id=${key}
          name=${key}
          inputmode=${mb ? 'decimal' : 'numeric'}
          autocomplete="off"
          aria-describedby="${key}-hint ${problem ? `${key}-problem` : ''}"
          aria-invalid=${problem ? 'true' : 'false'}
          .value=${live(this.typed[key] ?? '')}
          @input=${(e: Event) => {
            this.typed = { ...this.typed, [key]: (e.target as HTMLInputElement).value };
          }}
        />
        ${mb ? html`<span aria-hidden="true">${msg('MB')}</span>` : ''}
      </div>
      <div class="hint" id="${key}-hint">${limitHint(key)}</div>
      ${problem ? html`<div class="error" id="${key}-problem">${problemText(key, problem)}</div>` : ''}
    </div>`;
  }

  override render() {
    return html`<h1>${msg('Settings')}</h1>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${renderLoad(
        this.task,
        () => msg('The settings could not be loaded.'),
        () => (this.answer ? this.form(this.answer) : ''),
      )}
      <sb-confirm></sb-confirm>`;
  }

  private form(a: SettingsAnswer) {
    return html`<form @submit=${this.submit} novalidate>
              <div class="limits">${LIMIT_KEYS.map((k) => this.field(k))}</div>
              <div class="actions">
                <button class="primary" type="submit" ?disabled=${this.busy}>${msg('Save settings')}</button>
              </div>
            </form>
            <dl class="facts">
              <dt>${msg('Settings revision')}</dt>
              <dd data-testid="settings-revision">${a.settings_revision}</dd>
            </dl>
            <h2>${msg('Cleanup')}</h2>
            <sb-cleanup-status .status=${a.cleanup}></sb-cleanup-status>
            <sb-metrics-token></sb-metrics-token>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-settings': SbSettings;
  }
}
