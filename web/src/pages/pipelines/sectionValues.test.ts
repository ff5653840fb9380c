import { describe, expect, it } from 'vitest';

import type { SectionMeta } from '../../api/types';
import { activeStages, itemPathOf, sectionInitial, sectionSubmitted, stageForms } from './sectionValues';

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

  it('shows and sends only the picked runner, starting from the settings stored under either of its ids', () => {
    const turns = { name: 'max-tool-rounds', label: label('Rounds'), type: 'integer', required: true, default: 10 as unknown as Record<string, never>, min: 0, max: 50 };
    const ai = stageForms({
      name: 'ai',
      label: label('AI'),
      stages: [
        { name: 'runner', path: 'ai.runner', label: label('Runner'), config: [] },
        { name: 'local-agent', path: 'ai.runner_config.local-agent', label: label('Agent'), config: [turns] },
        { name: 'plugin:langbot-team/LocalAgent/default', path: 'ai.runner_config.plugin:langbot-team/LocalAgent/default', label: label('Agent'), config: [turns] },
      ],
    });
    const config = { ai: { runner: { id: 'local-agent' }, runner_config: { 'local-agent': { 'max-tool-rounds': 3 } } } };
    const values = sectionInitial(config, 'ai', ai);
    expect(activeStages(ai, values).map((s) => s.name)).toEqual(['runner', 'local-agent']);
    // Renamed to LangBot's id: that stage shows the stored settings, and only it is sent.
    (values.ai as { runner: { id: string } }).runner.id = 'plugin:langbot-team/LocalAgent/default';
    expect(activeStages(ai, values).map((s) => s.name)).toEqual(['runner', 'plugin:langbot-team/LocalAgent/default']);
    expect(sectionSubmitted(values, 'ai', ai)).toEqual({
      runner: { id: 'plugin:langbot-team/LocalAgent/default' },
      runner_config: { 'plugin:langbot-team/LocalAgent/default': { 'max-tool-rounds': 3 } },
    });
  });
});
