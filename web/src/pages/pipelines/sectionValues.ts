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

/** The form's values: `{ [section]: … }` with each stage's items filled (stored, else default). */
export function sectionInitial(config: Record<string, unknown>, section: string, stages: StageForm[]): Record<string, unknown> {
  const root: Record<string, unknown> = { [section]: structuredClone(config[section] ?? {}) };
  for (const stage of stages) setAt(root, stage.path, { ...at(root, stage.path), ...initialValues(stage.fields, at(root, stage.path)) });
  return root;
}

/** The section to send: what was stored, with every stage's visible items as edited. */
export function sectionSubmitted(values: Record<string, unknown>, section: string, stages: StageForm[]): Record<string, unknown> {
  const root: Record<string, unknown> = { [section]: structuredClone(values[section] ?? {}) };
  for (const stage of stages) setAt(root, stage.path, { ...at(root, stage.path), ...submittedValues(stage.fields, at(root, stage.path)) });
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
