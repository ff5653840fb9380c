// Installed plugins as LangBot answers them: the manifest (`{owner, rel_path, manifest}`), its
// config form (`spec.config`), and its components (Tools with their parameters).
import type { components } from '../../api/schema';
import type { FormField, Localized } from '../../forms/fields';

type S = components['schemas'];
export type Plugin = S['Plugin'];
export type PluginSystemStatus = S['PluginSystemStatus'];
export type LogLine = S['LogLine'];

interface Metadata {
  author?: string;
  name?: string;
  version?: string;
  label?: Localized;
  description?: Localized;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const text = (v: unknown): Localized | undefined => {
  const o = obj(v);
  return typeof o.en_US === 'string' ? (o as Localized) : undefined;
};

/** The manifest itself (inside LangBot's `{owner, rel_path, manifest}` wrapper). */
function manifestOf(plugin: Pick<Plugin, 'manifest'>): Json {
  return obj(obj(plugin.manifest).manifest);
}

export function metadataOf(plugin: Pick<Plugin, 'manifest'>): Required<Pick<Metadata, 'author' | 'name' | 'version'>> & Metadata {
  const m = obj(manifestOf(plugin).metadata);
  return {
    author: typeof m.author === 'string' ? m.author : '',
    name: typeof m.name === 'string' ? m.name : '',
    version: typeof m.version === 'string' ? m.version : '',
    label: text(m.label),
    description: text(m.description),
  };
}

export const idOf = (plugin: Pick<Plugin, 'manifest'>): string => {
  const m = metadataOf(plugin);
  return `${m.author}/${m.name}`;
};

export interface Component {
  kind: string;
  name: string;
  label?: Localized;
  description?: Localized;
}

export function componentsOf(plugin: Pick<Plugin, 'components'>): Component[] {
  return plugin.components.map((c) => {
    const m = obj(obj(obj(c).manifest).manifest);
    const meta = obj(m.metadata);
    return {
      kind: typeof m.kind === 'string' ? m.kind : '',
      name: typeof meta.name === 'string' ? meta.name : '',
      label: text(meta.label),
      description: text(meta.description),
    };
  });
}

/** The manifest's config items as the form renderer's fields (`secret` is a masked string). */
export function configFields(plugin: Pick<Plugin, 'manifest'>): FormField[] {
  const items = obj(manifestOf(plugin).spec).config;
  if (!Array.isArray(items)) return [];
  return items.map((raw) => {
    const f = obj(raw);
    const type = typeof f.type === 'string' ? f.type : 'string';
    const name = typeof f.name === 'string' ? f.name : '';
    const options = Array.isArray(f.options)
      ? f.options.map((o) => {
          const option = typeof obj(o).name === 'string' ? (obj(o).name as string) : '';
          return { name: option, label: text(obj(o).label) ?? { en_US: option } };
        })
      : undefined;
    return {
      name,
      label: text(f.label) ?? { en_US: name },
      ...(text(f.description) ? { description: text(f.description) } : {}),
      type: type === 'secret' || type === 'password' ? 'string' : type,
      required: f.required === true,
      default: f.default ?? null,
      secret: type === 'secret' || type === 'password',
      ...(options ? { options } : {}),
    };
  });
}

/** Why the plugins cannot run here, if they cannot (`null` when they can). */
export function blocked(status: PluginSystemStatus | undefined): 'disabled' | 'failed' | null {
  if (!status) return null;
  if (!status.is_enable) return 'disabled';
  if (status.runtime_state === 'failed') return 'failed';
  return null;
}
