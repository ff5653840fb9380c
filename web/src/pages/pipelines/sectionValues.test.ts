import { describe, expect, it } from 'vitest';

import type { SectionMeta } from '../../api/types';
import { itemPathOf, sectionInitial, sectionSubmitted, stageForms } from './sectionValues';

const label = (en: string) => ({ en_US: en, zh_Hans: en });
const section: SectionMeta = {
  name: 'safety',
  label: label('Safety'),
  stages: [
    {
      name: 'rate-limit',
      path: 'safety.rate-limit',
      label: label('Rate limit'),
      config: [
        { name: 'limitation', label: label('Messages'), type: 'integer', required: true, default: 60 as unknown as Record<string, never>, min: 1, max: 100 },
        { name: 'strategy', label: label('Strategy'), type: 'select', required: true, default: 'drop' as unknown as Record<string, never>, options: [{ name: 'drop', label: label('drop') }] },
      ],
    },
  ],
};

describe('pipeline section forms', () => {
  const stages = stageForms(section);

  it('fills each stage from the stored config and sends the whole section back', () => {
    const config = { safety: { 'rate-limit': { limitation: 5, 'window-length': 60 }, 'content-filter': { scope: 'all' } }, ai: { x: 1 } };
    const values = sectionInitial(config, 'safety', stages);
    expect(values).toEqual({ safety: { 'rate-limit': { limitation: 5, 'window-length': 60, strategy: 'drop' }, 'content-filter': { scope: 'all' } } });
    (values.safety as { 'rate-limit': { limitation: number } })['rate-limit'].limitation = 9;
    // Other sections are not sent; items the form does not show are kept.
    expect(sectionSubmitted(values, 'safety', stages)).toEqual({ 'rate-limit': { limitation: 9, 'window-length': 60, strategy: 'drop' }, 'content-filter': { scope: 'all' } });
    expect(config.safety['rate-limit'].limitation).toBe(5);
  });

  it('places a server error at the item its path is inside', () => {
    expect(itemPathOf('safety.rate-limit.limitation', stages)).toBe('safety.rate-limit.limitation');
    expect(itemPathOf('safety.rate-limit.strategy[0]', stages)).toBe('safety.rate-limit.strategy');
    expect(itemPathOf('safety.rate-limit.limitation.deep', stages)).toBe('safety.rate-limit.limitation');
    expect(itemPathOf('ai.other', stages)).toBeNull();
  });
});
