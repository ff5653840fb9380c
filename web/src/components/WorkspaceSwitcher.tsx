import { Button, Menu, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Check, ChevronsUpDown, Plus } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useSession } from '../app/session-context';
import { applyServerErrors } from '../forms/serverErrors';

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
      <Modal opened={creating} onClose={close} title={t('workspace.create')}>
        <CreateWorkspaceForm
          onCreated={(uuid) => {
            close();
            switchWorkspace(uuid);
          }}
        />
      </Modal>
    </>
  );
}

function CreateWorkspaceForm({ onCreated }: { onCreated: (uuid: string) => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : t('common.required')) },
  });
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/api/v1/workspaces', { body: { name } })),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: keys.workspaces });
      onCreated(created.uuid);
    },
    onError: (error) => applyServerErrors(form, error),
  });
  return (
    <form onSubmit={form.onSubmit((v) => create.mutate(v.name.trim()))} noValidate>
      <Stack>
        <TextInput label={t('workspace.name')} required data-autofocus {...form.getInputProps('name')} />
        <Button type="submit" loading={create.isPending}>
          {t('common.create')}
        </Button>
      </Stack>
    </form>
  );
}
