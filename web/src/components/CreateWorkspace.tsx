// The dialog that makes a Workspace (from the Workspace switcher; its own chunk).
import { Button, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { applyServerErrors } from '../forms/serverErrors';

export default function CreateWorkspace({ onClose, onCreated }: { onClose: () => void; onCreated: (uuid: string) => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened onClose={onClose} title={t('workspace.create')}>
      <CreateWorkspaceForm onCreated={onCreated} />
    </Modal>
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
