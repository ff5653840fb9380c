import type { UseFormReturnType } from '@mantine/form';

import { ApiError } from '../api/errors';

export interface PlaceOptions {
  /** Server field → form path, where they differ (`user` → `email`). */
  aliases?: Record<string, string>;
  /** Form paths to try in front of the server's field (`config.` for `config.timeout`…). */
  prefixes?: string[];
}

/** Shows the server's field errors at their fields; answers how many it placed. */
export function applyServerErrors<V>(form: UseFormReturnType<V>, error: unknown, options: PlaceOptions = {}): number {
  if (!(error instanceof ApiError)) return 0;
  const values = form.getValues() as Record<string, unknown>;
  let placed = 0;
  for (const { field, message } of error.fieldErrors) {
    const direct = options.aliases?.[field] ?? field;
    const candidates = [direct, ...(options.prefixes ?? []).map((p) => p + field)];
    const target = candidates.find((c) => hasPath(values, c));
    if (target) {
      form.setFieldError(target, message);
      placed += 1;
    }
  }
  return placed;
}

function hasPath(values: Record<string, unknown>, path: string): boolean {
  let node: unknown = values;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}
