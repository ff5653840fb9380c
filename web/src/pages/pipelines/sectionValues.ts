// A pipeline config section as a form: the stages' items at their config paths, what is sent
// on save (the whole section, which the server puts in place of the stored one and validates
// merged), and where a server error about a path inside an item belongs.
import { type FormField, fromItemMeta, initialValues, submittedValues } from '../../forms/fields';
import type { SectionMeta } from '../../api/types';

export interface StageForm {
  name: string;
  /** `trigger.access-control`. */
  path: string;
  label: SectionMeta['label'];
  fields: FormField[];
}

export function stageForms(section: SectionMeta): StageForm[] {
  return section.stages.map((s) => ({ name: s.name, path: s.path, label: s.label, fields: s.config.map(fromItemMeta) }));
}

function at(root: unknown, path: string): Record<string, unknown> {
  let node: unknown = root;
  for (const part of path.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node && typeof node === 'object' ? (node as Record<string, unknown>) : {};
}

function setAt(root: Record<string, unknown>, path: string, value: Record<string, unknown>): void {
  const parts = path.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!next || typeof next !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] ?? ''] = value;
}

// A runner's own settings are a stage at `ai.runner_config.<runner id>`. One runner answers
// (`ai.runner.id`), so only its stage is shown and sent; the built-in agent has two ids
// (`local-agent` and LangBot's `plugin:langbot-team/LocalAgent/default`), and whichever is
// picked starts from the settings stored under either.
const RUNNER_CONFIG = 'ai.runner_config.';

function isRunnerStage(stage: StageForm): boolean {
  return stage.path.startsWith(RUNNER_CONFIG);
}

function runnerId(values: Record<string, unknown>): unknown {
  return (at(values, 'ai.runner') as { id?: unknown }).id;
}

/** The stages to show and send: every stage but the runners not picked. */
export function activeStages(stages: StageForm[], values: Record<string, unknown>): StageForm[] {
  const id = runnerId(values);
  return stages.filter((s) => !isRunnerStage(s) || s.name === id);
}

/** The form's values: `{ [section]: … }` with each stage's items filled (stored, else default). */
export function sectionInitial(config: Record<string, unknown>, section: string, stages: StageForm[]): Record<string, unknown> {
  const root: Record<string, unknown> = { [section]: structuredClone(config[section] ?? {}) };
  const id = runnerId(root);
  const stored = stages.filter(isRunnerStage).map((s) => at(root, s.path));
  const runnerSource = at(root, `${RUNNER_CONFIG}${String(id)}`);
  const shared = Object.keys(runnerSource).length ? runnerSource : (stored.find((v) => Object.keys(v).length) ?? {});
  for (const stage of stages) {
    const source = isRunnerStage(stage) ? structuredClone(shared) : at(root, stage.path);
    setAt(root, stage.path, { ...source, ...initialValues(stage.fields, source) });
  }
  return root;
}

/** The section to send: what was stored, with every active stage's visible items as edited
 *  (and no settings for a runner not picked). */
export function sectionSubmitted(values: Record<string, unknown>, section: string, stages: StageForm[]): Record<string, unknown> {
  const root: Record<string, unknown> = { [section]: structuredClone(values[section] ?? {}) };
  const active = activeStages(stages, root);
  for (const stage of stages.filter((s) => isRunnerStage(s) && !active.includes(s))) {
    Reflect.deleteProperty(at(root, stage.path.slice(0, stage.path.lastIndexOf('.'))), stage.name);
  }
  for (const stage of active) setAt(root, stage.path, { ...at(root, stage.path), ...submittedValues(stage.fields, at(root, stage.path)) });
  return root[section] as Record<string, unknown>;
}

/** The item a server error path names: `trigger.ignore-rules.regexp[0]` → `…regexp`,
 *  `ai.runner_config.local-agent.model.primary` → `…model`. Null when no item matches. */
export function itemPathOf(serverPath: string, stages: StageForm[]): string | null {
  const items = stages.flatMap((s) => s.fields.map((f) => `${s.path}.${f.name}`));
  let path = serverPath;
  while (path) {
    if (items.includes(path)) return path;
    const trimmed = path.replace(/\[\d+\]$/, '');
    path = trimmed !== path ? trimmed : path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
  }
  return null;
}
