// A plugin config field of type `file` or `array[file]`: the value is `{file_key, mimetype}`
// (a list of them), each file uploaded first (`POST /plugins/config-files`, at most 10 MiB).
import { Button, CloseButton, FileButton, Group, Input, Stack, Text } from '@mantine/core';
import { Paperclip } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorText } from '../../components/notify';
import { useUploadConfigFile } from './queries';

export interface FileValue {
  file_key: string;
  mimetype: string;
}

const MAX_BYTES = 10 * 1024 * 1024;

interface Props {
  label: string;
  description: string;
  multiple: boolean;
  value: unknown;
  onChange: (value: FileValue | FileValue[] | null) => void;
  error?: string;
}

const isFile = (v: unknown): v is FileValue => !!v && typeof v === 'object' && typeof (v as FileValue).file_key === 'string';

export function FileField({ label, description, multiple, value, onChange, error }: Props) {
  const { t } = useTranslation();
  const upload = useUploadConfigFile();
  const [tooLarge, setTooLarge] = useState(false);
  const files = (Array.isArray(value) ? value : [value]).filter(isFile);
  const add = (file: File | null) => {
    if (!file) return;
    setTooLarge(file.size > MAX_BYTES);
    if (file.size > MAX_BYTES) return;
    upload.mutate(file, { onSuccess: (stored) => onChange(multiple ? [...files, stored] : stored) });
  };
  const remove = (key: string) => {
    const rest = files.filter((f) => f.file_key !== key);
    onChange(multiple ? rest : null);
  };
  return (
    <Input.Wrapper label={label} description={description} error={error ?? (tooLarge ? t('plugins.fileTooLarge') : upload.isError ? errorText(upload.error) : undefined)}>
      <Stack gap={4} mt={4}>
        {files.map((f) => (
          <Group key={f.file_key} gap="xs" wrap="nowrap" data-testid="config-file">
            <Paperclip size={14} aria-hidden />
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              {f.file_key}
            </Text>
            <Text size="xs" c="dimmed">
              {f.mimetype}
            </Text>
            <CloseButton size="sm" onClick={() => remove(f.file_key)} aria-label={t('plugins.removeFile', { name: f.file_key })} />
          </Group>
        ))}
        {files.length === 0 && (
          <Text size="sm" c="dimmed">
            {t('plugins.noFile')}
          </Text>
        )}
        {(multiple || files.length === 0) && (
          <FileButton onChange={add}>
            {(props) => (
              <Button {...props} variant="default" size="xs" loading={upload.isPending} w="fit-content" aria-label={t('plugins.uploadFileFor', { name: label })}>
                {t('plugins.uploadFile')}
              </Button>
            )}
          </FileButton>
        )}
      </Stack>
    </Input.Wrapper>
  );
}
