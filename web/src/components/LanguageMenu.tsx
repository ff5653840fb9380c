// The language switch: the UI's strings, and — for whoever may change it — the Workspace's
// message language, so the server's error messages follow.
import { ActionIcon, Menu, Tooltip } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Check, Languages } from 'lucide-react';
import { useContext } from 'react';
import { useTranslation } from 'react-i18next';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { SessionContext } from '../app/session-context';
import { switchLanguage } from '../i18n';
import { LANGUAGES, type Language } from '../i18n/languages';
import { notifyError } from './notify';

export function LanguageMenu() {
  const { t, i18n } = useTranslation();
  const session = useContext(SessionContext);
  const queryClient = useQueryClient();

  async function choose(code: Language) {
    try {
      await switchLanguage(code);
      if (session?.can('workspace.update')) {
        await unwrap(api.PUT('/api/v1/workspaces/current/language', { body: { language: code } }));
        await queryClient.invalidateQueries({ queryKey: keys.language(session.ws) });
      }
    } catch (error) {
      notifyError(error);
    }
  }

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Tooltip label={t('language.label')}>
          <ActionIcon variant="subtle" size="lg" aria-label={t('language.label')} data-testid="language-menu">
            <Languages size={18} />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((l) => (
          <Menu.Item
            key={l.code}
            lang={l.code.replace('_', '-')}
            onClick={() => void choose(l.code)}
            rightSection={i18n.language === l.code ? <Check size={14} aria-hidden /> : null}
            aria-current={i18n.language === l.code ? 'true' : undefined}
          >
            {l.name}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
