// The Workspace's plugins, run by LangBot's plugin runtime (`lbp rt`): whether the runtime can
// run here (and why not), the installed plugins with their Tools, install from a package
// file, enable/disable, and each plugin's config, readme and logs (a dialog of its own chunk).
import { Alert, Badge, Button, Card, Checkbox, FileButton, Group, Image, Modal, Skeleton, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { Info, Puzzle, TriangleAlert, Upload } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { errorText, notifySuccess } from '../../components/notify';
import { localize } from '../../forms/fields';
import { blocked, componentsOf, idOf, metadataOf, type Plugin } from './model';
import { useInstallPlugin, usePluginIcon, usePlugins, usePluginSystem, useSetPluginEnabled, useUninstallPlugin, waitingFor } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/plugins.json';

await addArea('plugins', strings);

const PluginDetail = lazy(() => import('./PluginDetail'));

export default function PluginsPage() {
  const { t } = useTranslation();
  const { can } = useSession();
  const manage = can('resource.manage');
  const [starting, setStarting] = useState(false);
  const list = usePlugins(starting);
  const system = usePluginSystem(waitingFor(list.data?.plugins));
  const nowStarting = system.data?.runtime_state === 'starting';
  if (nowStarting !== starting) setStarting(nowStarting);
  const install = useInstallPlugin();
  const [detail, setDetail] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const why = blocked(system.data);
  const plugins = list.data?.plugins;

  const upload = (file: File | null) => {
    if (!file) return;
    install.mutate(file, {
      onSuccess: ({ plugin }) => notifySuccess(t('plugins.installed', { id: idOf(plugin) })),
    });
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('plugins.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('plugins.subtitle')}
          </Text>
        </div>
        {manage && (
          <FileButton onChange={upload} accept=".lbpkg,.zip">
            {(props) => (
              <Button {...props} leftSection={<Upload size={16} />} loading={install.isPending} data-testid="install-plugin">
                {t('plugins.install')}
              </Button>
            )}
          </FileButton>
        )}
      </Group>
      {install.isError && (
        <Alert color="red" variant="light" icon={<TriangleAlert size={18} />} data-testid="install-error" withCloseButton onClose={() => install.reset()}>
          {errorText(install.error)}
        </Alert>
      )}
      {system.isError && <ErrorAlert error={system.error} onRetry={() => void system.refetch()} />}
      {why === 'disabled' && (
        <Alert color="gray" variant="light" icon={<Info size={18} />} data-testid="plugins-disabled">
          {t('plugins.disabled')}
        </Alert>
      )}
      {why === 'failed' && system.data && (
        <Alert color="red" variant="light" icon={<TriangleAlert size={18} />} title={t('plugins.failedTitle')} data-testid="plugins-failed">
          <Text size="sm" style={{ wordBreak: 'break-word' }}>
            {system.data.plugin_connector_error}
          </Text>
        </Alert>
      )}
      {system.data && !why && (
        <Text size="sm" c="dimmed" data-testid="runtime-state">
          {t(`plugins.runtime.${system.data.runtime_state}`, {
            defaultValue: system.data.runtime_state,
            ms: system.data.started_in_ms ?? 0,
          })}
        </Text>
      )}
      {list.isError && <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <Skeleton h={120} />}
      {plugins?.length === 0 && (
        <Card withBorder padding="xl" data-testid="plugins-empty">
          <Stack align="center" gap="xs">
            <Puzzle size={28} aria-hidden />
            <Text fw={500}>{t('plugins.empty')}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {t('plugins.emptyHint')}
            </Text>
          </Stack>
        </Card>
      )}
      {plugins && plugins.length > 0 && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" horizontalSpacing="md">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('plugins.name')}</Table.Th>
                  <Table.Th>{t('plugins.tools')}</Table.Th>
                  <Table.Th>{t('plugins.enabled')}</Table.Th>
                  <Table.Th>{t('plugins.status')}</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {plugins.map((p) => (
                  <PluginRow key={idOf(p)} plugin={p} manage={manage} onDetail={() => setDetail(idOf(p))} onRemove={() => setRemoving(idOf(p))} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      {detail !== null && (
        <Suspense fallback={null}>
          <PluginDetail id={detail} plugin={plugins?.find((p) => idOf(p) === detail)} manage={manage} onClose={() => setDetail(null)} />
        </Suspense>
      )}
      {removing !== null && <UninstallDialog id={removing} onClose={() => setRemoving(null)} />}
    </Stack>
  );
}

function PluginIcon({ id }: { id: string }) {
  const icon = usePluginIcon(id);
  if (!icon.data?.icon_base64) return <Puzzle size={28} aria-hidden />;
  return <Image src={`data:${icon.data.mime_type};base64,${icon.data.icon_base64}`} w={28} h={28} alt="" />;
}

function PluginRow({ plugin, manage, onDetail, onRemove }: { plugin: Plugin; manage: boolean; onDetail: () => void; onRemove: () => void }) {
  const { t, i18n } = useTranslation();
  const toggle = useSetPluginEnabled();
  const meta = metadataOf(plugin);
  const id = idOf(plugin);
  const label = localize(meta.label, i18n.language) || meta.name;
  const tools = componentsOf(plugin).filter((c) => c.kind === 'Tool');
  const running = plugin.status === 'initialized';
  return (
    <Table.Tr data-testid={`plugin-${id}`}>
      <Table.Td>
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <PluginIcon id={id} />
          <div>
            <Text size="sm" fw={500}>
              {label}{' '}
              <Text span size="xs" c="dimmed">
                {id} · v{meta.version}
              </Text>
            </Text>
            <Text size="xs" c="dimmed">
              {localize(meta.description, i18n.language)}
            </Text>
          </div>
        </Group>
      </Table.Td>
      <Table.Td>
        <Text size="sm" data-testid="plugin-tools">
          {tools.length ? tools.map((c) => c.name).join(', ') : '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Switch
          checked={plugin.enabled}
          disabled={!manage || toggle.isPending}
          onChange={(e) => toggle.mutate({ id, enabled: e.currentTarget.checked })}
          aria-label={t('plugins.enableNamed', { id })}
        />
      </Table.Td>
      <Table.Td>
        <Badge color={running ? 'teal' : 'gray'} variant="light" miw="max-content" data-testid="plugin-status">
          {t(running ? 'plugins.running' : plugin.enabled ? 'plugins.notRunning' : 'plugins.off')}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          <Button size="compact-xs" variant="subtle" onClick={onDetail} aria-label={t('plugins.detailNamed', { id })}>
            {t('plugins.detail')}
          </Button>
          {manage && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove} aria-label={t('plugins.uninstallNamed', { id })}>
              {t('plugins.uninstall')}
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Uninstalling says what goes: the plugin, and its own stored data only when asked. */
function UninstallDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const { t } = useTranslation();
  const remove = useUninstallPlugin();
  const [deleteData, setDeleteData] = useState(false);
  const confirm = () =>
    remove.mutate(
      { id, deleteData },
      {
        onSuccess: () => {
          notifySuccess(t('plugins.uninstalled', { id }));
          onClose();
        },
      },
    );
  return (
    <Modal opened onClose={onClose} title={t('plugins.uninstallTitle', { id })}>
      <Stack>
        <Text size="sm">{t('plugins.uninstallBody')}</Text>
        <Checkbox checked={deleteData} onChange={(e) => setDeleteData(e.currentTarget.checked)} label={t('plugins.deleteData')} data-testid="delete-data" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button color="red" onClick={confirm} loading={remove.isPending} data-testid="confirm-uninstall">
            {t('plugins.uninstall')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
