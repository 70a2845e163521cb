/**
 * The upload dialog: a log file into a project (an existing one or a new
 * one), with the import options of `POST …/dataset`, a progress bar for the
 * upload (XMLHttpRequest's upload progress) and one for the import: while
 * the service imports, the dataset's record tells how many of the file's
 * records are applied (`progress`, counted by the check pass that reads the
 * whole file first), polled every quarter second; the bar fills when the
 * service answers with the import summary.
 *
 * An upload that stores nothing is no success: a file the service refuses,
 * or one all of whose records were rejected, ends in the error phase with
 * the first reasons, and leaves nothing behind: a project this upload
 * created is deleted again, an empty dataset in an existing project too.
 * (The project is created first because the upload names it; the service
 * checks the whole file before it applies anything.)
 */
import { ApiError, type Client, type Dataset, type Project, type UploadOptions } from './api.js';

/** An upload the service took but that stored no event: shown as a failure, with why. */
class NothingImported extends Error {}

/** The first few rejections of an import summary, as `where: why` text. */
function reasons(summary: Record<string, unknown>, max = 3): string {
  const list = Array.isArray(summary.rejections) ? (summary.rejections as { location?: unknown; reason?: unknown }[]) : [];
  return list
    .slice(0, max)
    .map((r) => `${String(r.location ?? '?')}: ${String(r.reason ?? '?')}`)
    .join('; ');
}
import { cases, events, int } from './format.js';
import { projectOption } from './labels.js';
import { labelText, oneLine } from './text.js';

export type UploadPhase = 'idle' | 'uploading' | 'importing' | 'done' | 'error';

export interface UploadHost {
  client(): Client | undefined;
  projects(): Project[];
  currentProject(): string | undefined;
  /** After an upload: the target project (new ones included), to refresh the list and maybe open it. */
  finished(project: Project, open: boolean): Promise<void>;
}

const OPTION_FIELDS = ['name', 'format', 'lifecycle', 'classifier', 'caseColumn', 'activityColumn', 'timestampColumn', 'resourceColumn', 'startTimestampColumn', 'delimiter', 'timezone', 'caseNotion'] as const;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export class UploadDialog {
  /** Every phase this dialog went through, in order (a test hook). */
  readonly phases: UploadPhase[] = [];
  private readonly dialog = $<HTMLDialogElement>('upload-dialog');
  private readonly form = $<HTMLFormElement>('upload-form');
  private readonly target = $<HTMLSelectElement>('upload-project');
  private readonly newName = $<HTMLInputElement>('upload-new-name');
  private readonly file = $<HTMLInputElement>('upload-file');
  private readonly uploadBar = $<HTMLProgressElement>('upload-bar');
  private readonly uploadText = $<HTMLElement>('upload-text');
  private readonly importBar = $<HTMLProgressElement>('import-bar');
  private readonly importText = $<HTMLElement>('import-text');
  private readonly status = $<HTMLElement>('upload-status');
  private readonly start = $<HTMLButtonElement>('upload-start');
  private readonly open = $<HTMLButtonElement>('upload-open');
  private running: { abort(): void } | undefined;
  private watch: AbortController | undefined;
  private lastProject: Project | undefined;

  constructor(private readonly host: UploadHost) {
    $<HTMLButtonElement>('open-upload').addEventListener('click', () => this.show());
    $<HTMLButtonElement>('upload-close').addEventListener('click', () => this.close());
    this.target.addEventListener('change', () => this.syncTarget());
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.run();
    });
    this.open.addEventListener('click', () => {
      if (this.lastProject) void this.host.finished(this.lastProject, true);
      this.close();
    });
    this.file.addEventListener('change', () => {
      const f = this.file.files?.[0];
      const name = $<HTMLInputElement>('opt-name');
      if (f && !name.value) name.placeholder = labelText(f.name);
    });
    this.setPhase('idle');
  }

  show(): void {
    const current = this.host.currentProject();
    this.target.replaceChildren(
      ...this.host.projects().map((p) => projectOption(p, p.id === current)),
      new Option('New project…', '', false, !current && !this.host.projects().length),
    );
    this.syncTarget();
    if (!this.running) this.reset();
    if (!this.dialog.open) this.dialog.showModal();
  }

  private close(): void {
    this.running?.abort();
    this.dialog.close();
  }

  private syncTarget(): void {
    const isNew = this.target.value === '';
    $<HTMLElement>('new-project-row').hidden = !isNew;
    this.newName.required = isNew;
  }

  private reset(): void {
    this.uploadBar.value = 0;
    this.importBar.max = 1;
    this.importBar.value = 0;
    this.uploadText.textContent = '';
    this.importText.textContent = '';
    this.status.textContent = '';
    this.open.hidden = true;
    this.start.disabled = false;
    this.setPhase('idle');
  }

  private setPhase(phase: UploadPhase): void {
    if (this.phases[this.phases.length - 1] !== phase) this.phases.push(phase);
    this.status.dataset.phase = phase;
    this.form.dataset.phase = phase;
  }

  private async run(): Promise<void> {
    const client = this.host.client();
    const file = this.file.files?.[0];
    if (!client || !file || this.running) return;
    this.reset();
    this.start.disabled = true;
    const options: UploadOptions = {};
    for (const f of OPTION_FIELDS) {
      const el = document.getElementById(`opt-${f}`) as HTMLInputElement | HTMLSelectElement | null;
      const v = el?.value.trim();
      if (v) options[f] = v;
    }
    options.name ??= file.name.slice(0, 200);
    /** The project this upload made, removed again if nothing is imported into it. */
    let created: Project | undefined;
    try {
      let project = this.host.projects().find((p) => p.id === this.target.value);
      if (!project) {
        this.status.textContent = 'Creating the project…';
        project = await client.createProject(this.newName.value.trim());
        created = project;
      }
      this.lastProject = project;
      this.watchImport(client, project.id, options.name);
      this.setPhase('uploading');
      this.status.textContent = `Uploading ${labelText(file.name)} into ${labelText(project.name)}…`;
      const job = client.upload(project.id, file, options, (p) => {
        if (p.phase === 'uploading') {
          this.uploadBar.value = p.total ? p.sent / p.total : 0;
          this.uploadText.textContent = `${int(p.sent / 1024)} of ${int(p.total / 1024)} KiB`;
        } else {
          this.uploadBar.value = 1;
          this.uploadText.textContent = `${int(p.total / 1024)} KiB sent`;
          // Indeterminate until the first poll of the dataset record answers with its progress.
          this.importBar.removeAttribute('value');
          this.importText.textContent = 'importing…';
          this.setPhase('importing');
          this.status.textContent = 'The service is importing the file…';
        }
      });
      this.running = job;
      const dataset: Dataset = await job.done;
      // A body small enough to leave in one go may skip the progress events: the bars still end full.
      this.uploadBar.value = 1;
      if (this.phases[this.phases.length - 1] === 'uploading') this.setPhase('importing');
      this.importBar.max = 1;
      this.importBar.value = 1;
      const s = dataset.summary as Record<string, number | string>;
      const accepted = Number(s.accepted ?? 0);
      const rejected = Number(s.rejected ?? 0);
      const duplicates = Number(s.duplicates ?? 0);
      const why = reasons(dataset.summary);
      // Only a re-sent file (every record already stored) stores nothing and is still fine.
      if (accepted === 0 && (rejected > 0 || duplicates === 0)) {
        if (!created) await client.deleteDataset(project.id, dataset.id).catch(() => undefined);
        throw new NothingImported(
          `Nothing imported from ${labelText(file.name)}: no event could be stored, ${int(rejected)} record${rejected === 1 ? '' : 's'} rejected${why ? ` (${why})` : ''}.`,
        );
      }
      this.importText.textContent = 'done';
      this.status.textContent =
        `Imported ${labelText(file.name)}: ${events(accepted)} stored of ${cases(Number(s.cases ?? 0))} (${String(s.format ?? '?')}), ${int(duplicates)} duplicates, ${int(rejected)} rejected` +
        (rejected && why ? ` (${why}).` : '.');
      this.setPhase('done');
      this.open.hidden = project.id === this.host.currentProject();
      await this.host.finished(project, false);
    } catch (error) {
      let removed = '';
      if (created) {
        // Nothing of a failed upload stays behind: the project it made goes again.
        removed = await client.deleteProject(created.id).then(
          () => ' The new project was removed.',
          () => ` The new project ${labelText(created!.name)} could not be removed.`,
        );
        this.lastProject = undefined;
      }
      this.setPhase('error');
      this.importBar.value = 0;
      this.importText.textContent = 'failed';
      // The service's message may quote what was sent: shown on one line, controls visible.
      const text = error instanceof ApiError ? `${error.message} (${error.code}).` : error instanceof NothingImported ? error.message : String(error);
      this.status.textContent = oneLine(text + removed);
    } finally {
      this.running = undefined;
      this.watch?.abort();
      this.start.disabled = false;
    }
  }

  /** Follows the import's progress in its dataset record (items applied of the file's) while the service imports. */
  private watchImport(client: Client, projectId: string, name: string): void {
    this.watch?.abort();
    const watch = new AbortController();
    this.watch = watch;
    const poll = async () => {
      while (!watch.signal.aborted) {
        await new Promise((r) => setTimeout(r, 250));
        if (watch.signal.aborted || this.phases[this.phases.length - 1] !== 'importing') continue;
        try {
          const importing = (await client.datasets(projectId)).find((d) => d.state === 'importing' && d.name === name && d.progress);
          if (!importing?.progress || watch.signal.aborted || this.phases[this.phases.length - 1] !== 'importing') continue;
          const { items, total } = importing.progress;
          this.importBar.max = Math.max(1, total);
          this.importBar.value = items;
          this.importText.textContent = `importing… ${int(items)} of ${int(total)} records`;
        } catch {
          // A failed poll is tried again; the upload's own answer settles the dialog.
        }
      }
    };
    void poll();
  }
}
