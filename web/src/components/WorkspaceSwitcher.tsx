import { Button, Menu, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Check, ChevronsUpDown, Plus } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../app/session-context';

// The dialog (and its form) is its own chunk, fetched when first opened.
const CreateWorkspace = lazy(() => import('./CreateWorkspace'));

/** The Workspace name; a menu to switch when there is more than one (or more may be made). */
export function WorkspaceSwitcher() {
  const { t } = useTranslation();
  const { workspaces, current, system, switchWorkspace } = useSession();
  const [creating, { open, close }] = useDisclosure();
  const name = current.workspace.name;
  if (workspaces.length < 2 && !system.multi_workspace) {
    return (
      <Text fw={500} truncate maw={200} data-testid="workspace-name">
        {name}
      </Text>
    );
  }
  return (
    <>
      <Menu position="bottom-start" withinPortal>
        <Menu.Target>
          <Button variant="subtle" color="gray" rightSection={<ChevronsUpDown size={14} />} data-testid="workspace-switcher">
            <Text fw={500} truncate maw={160}>
              {name}
            </Text>
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{t('workspace.switch')}</Menu.Label>
          {workspaces.map((w) => (
            <Menu.Item
              key={w.uuid}
              onClick={() => switchWorkspace(w.uuid)}
              rightSection={w.uuid === current.workspace.uuid ? <Check size={14} aria-hidden /> : null}
            >
              {w.name}
            </Menu.Item>
          ))}
          {system.multi_workspace && (
            <>
              <Menu.Divider />
              <Menu.Item leftSection={<Plus size={14} />} onClick={open}>
                {t('workspace.create')}
              </Menu.Item>
            </>
          )}
        </Menu.Dropdown>
      </Menu>
      {creating && (
        <Suspense fallback={null}>
          <CreateWorkspace
            onClose={close}
            onCreated={(uuid) => {
              close();
              switchWorkspace(uuid);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
