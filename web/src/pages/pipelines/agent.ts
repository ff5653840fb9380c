// The built-in agent's settings in a pipeline config. The agent has two runner ids
// (`local-agent` and LangBot's `plugin:langbot-team/LocalAgent/default`); the server uses the
// settings under the pipeline's runner id, else those under the other, else the defaults.
import type { Pipeline } from '../../api/types';

type Agent = NonNullable<Pipeline['config']['ai']['runner_config']['local-agent']>;

export function agentOf(config: Pipeline['config']): Agent | null {
  const configs = config.ai.runner_config;
  const mine = config.ai.runner.id === 'plugin:langbot-team/LocalAgent/default' ? configs['plugin:langbot-team/LocalAgent/default'] : configs['local-agent'];
  return mine ?? configs['local-agent'] ?? configs['plugin:langbot-team/LocalAgent/default'] ?? null;
}
