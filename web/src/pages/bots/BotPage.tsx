// One bot: its state (enable/disable), webhook URL, routes with the dry-run beside them,
// settings (the adapter's form) and the route status.
import { Anchor, Badge, Breadcrumbs, Button, Card, Grid, Group, Skeleton, Stack, Switch, Tabs, Text, Title } from '@mantine/core';
import { Plus, Save } from 'lucide-react';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';

import { ApiError } from '../../api/errors';
import type { BotDetail, Pipeline } from '../../api/types';
import { useSession } from '../../app/session-context';
import { CopyField } from '../../components/CopyField';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { useAllPipelines } from '../pipelines/queries';
import { AdapterIcon } from './AdapterIcon';
import { DryRun } from './DryRun';
import { errorKey, preloadDrag, RouteEditor, type RouteErrors } from './RouteEditor';
import { blankRoute, type DraftRoute, fromRoute, routeErrorAt, toInput } from './routes';
import { useAdapters, useBot, useDeleteBot, useUpdateBot } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/bots.json';
import { openConfirm } from '../../components/confirm';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('bots', strings);

// The tabs not shown first are their own chunks.
const BotForm = lazy(() => import('./BotForm').then((m) => ({ default: m.BotForm })));
const RouteStatusPanel = lazy(() => import('./RouteStatusPanel').then((m) => ({ default: m.RouteStatusPanel })));

export default function BotPage() {
  const { uuid = '' } = useParams();
  const bot = useBot(uuid);
  useEffect(preloadDrag, []);
  if (bot.isPending) return <Skeleton h={240} />;
  if (bot.isError) return <ErrorAlert error={bot.error} onRetry={() => void bot.refetch()} />;
  return <BotView key={bot.data.bot.uuid} bot={bot.data.bot} />;
}

function BotView({ bot }: { bot: BotDetail }) {
  const { t } = useTranslation();
  const { can } = useSession();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') ?? 'routes';
  const adapters = useAdapters();
  const pipelines = useAllPipelines();
  const toggle = useUpdateBot(false);
  const remove = useDeleteBot();
  const manage = can('resource.manage');
  const adapter = adapters.data?.adapters.find((a) => a.name === bot.adapter);

  const confirmDelete = () =>
    openConfirm({
      title: t('bots.deleteTitle', { name: bot.name }),
      children: <Text size="sm">{t('bots.deleteBody')}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(bot.uuid, {
          onSuccess: () => {
            notifySuccess(t('bots.deleted', { name: bot.name }));
            void navigate('/platform/bots');
          },
        }),
    });

  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/platform/bots" size="sm">
          {t('nav.bots')}
        </Anchor>
        <Text size="sm">{bot.name}</Text>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Group gap="sm" wrap="nowrap">
          <AdapterIcon adapter={adapter} />
          <div>
            <Title order={1} size="h2">
              {bot.name}
            </Title>
            <Group gap={6}>
              <Badge color={bot.enable ? 'teal' : 'gray'} variant="light" data-testid="bot-state">
                {bot.enable ? t('bots.enabled') : t('bots.disabledState')}
              </Badge>
              <Text size="xs" c="dimmed">
                {bot.adapter}
              </Text>
            </Group>
          </div>
        </Group>
        {manage && (
          <Group>
            <Switch
              label={t('bots.enable')}
              checked={bot.enable}
              disabled={toggle.isPending}
              onChange={(e) => toggle.mutate({ uuid: bot.uuid, body: { enable: e.currentTarget.checked } })}
              data-testid="bot-enable"
            />
            <Button variant="light" color="red" onClick={confirmDelete}>
              {t('common.delete')}
            </Button>
          </Group>
        )}
      </Group>
      {bot.adapter_runtime_values.webhook_full_url && !bot.adapter_runtime_values.embed_code && (
        <Card withBorder padding="sm">
          <Text size="sm" fw={500} mb={4}>
            {t('bots.webhook')}
          </Text>
          <CopyField value={bot.adapter_runtime_values.webhook_full_url} testId="webhook-url" />
          <Text size="xs" c="dimmed" mt={4}>
            {t('bots.webhookHint')}
          </Text>
        </Card>
      )}
      {bot.adapter_runtime_values.embed_code && (
        <Card withBorder padding="sm">
          <Text size="sm" fw={500} mb={4}>
            {t('bots.embed')}
          </Text>
          <CopyField value={bot.adapter_runtime_values.embed_code} block testId="embed-code" />
          <Text size="xs" c="dimmed" mt={4}>
            {t('bots.embedHint')}
          </Text>
        </Card>
      )}
      <Tabs value={tab} onChange={(v) => setParams(v && v !== 'routes' ? { tab: v } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="routes">{t('bots.tabRoutes')}</Tabs.Tab>
          <Tabs.Tab value="settings">{t('bots.tabSettings')}</Tabs.Tab>
          <Tabs.Tab value="status">{t('bots.tabStatus')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="routes" pt="md">
          {pipelines.isError && <ErrorAlert error={pipelines.error} onRetry={() => void pipelines.refetch()} />}
          {adapter && pipelines.data ? (
            <Routes key={JSON.stringify(bot.event_bindings)} bot={bot} pipelines={pipelines.data} events={adapter.spec.supported_events} manage={manage} />
          ) : (
            <Skeleton h={200} />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="settings" pt="md">
          {adapters.isError && <ErrorAlert error={adapters.error} onRetry={() => void adapters.refetch()} />}
          {adapters.data && (
            <Suspense fallback={<Skeleton h={200} />}>
              <BotForm adapters={adapters.data.adapters} bot={bot} onDone={() => undefined} />
            </Suspense>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="status" pt="md">
          <Suspense fallback={<Skeleton h={200} />}>
            <RouteStatusPanel botUuid={bot.uuid} />
          </Suspense>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function Routes({ bot, pipelines, events, manage }: { bot: BotDetail; pipelines: Pipeline[]; events: string[]; manage: boolean }) {
  const { t } = useTranslation();
  const initial = useMemo(() => bot.event_bindings.map(fromRoute), [bot.event_bindings]);
  const [routes, setRoutes] = useState<DraftRoute[]>(initial);
  const [errors, setErrors] = useState<RouteErrors>({});
  const [matched, setMatched] = useState<number | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const save = useUpdateBot();
  const dirty = JSON.stringify(routes.map(toInput)) !== JSON.stringify(initial.map(toInput));
  const defaultPipeline = pipelines.find((p) => p.is_default)?.uuid ?? pipelines[0]?.uuid ?? '';

  const change = (next: DraftRoute[]) => {
    setRoutes(next);
    setErrors({});
    setMatched(null);
  };

  const submit = () => {
    setFailure(null);
    save.mutate(
      { uuid: bot.uuid, body: { event_bindings: routes.map(toInput) } },
      {
        onSuccess: () => notifySuccess(t('routes.saved')),
        onError: (error) => {
          const placed: RouteErrors = {};
          if (error instanceof ApiError) {
            for (const { field, message } of error.fieldErrors) {
              const at = routeErrorAt(field);
              if (at) placed[errorKey(at.route, at.field || 'filters', at.filter)] = message;
            }
          }
          setErrors(placed);
          if (Object.keys(placed).length === 0) setFailure(error);
        },
      },
    );
  };

  return (
    <Grid>
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <Stack>
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {t('routes.hint')}
            </Text>
            {manage && (
              <Group gap="xs">
                <Button variant="default" leftSection={<Plus size={16} />} onClick={() => change([...routes, blankRoute(defaultPipeline)])} disabled={routes.length >= 50}>
                  {t('routes.add')}
                </Button>
                <Button leftSection={<Save size={16} />} onClick={submit} loading={save.isPending} disabled={!dirty} data-testid="routes-save">
                  {t('routes.save')}
                </Button>
              </Group>
            )}
          </Group>
          {routes.length === 0 && (
            <Card withBorder padding="lg">
              <Text fw={500}>{t('routes.empty')}</Text>
              <Text size="sm" c="dimmed">
                {t('routes.emptyHint')}
              </Text>
            </Card>
          )}
          {failure !== null && <ErrorAlert error={failure} />}
          {Object.keys(errors).length > 0 && (
            <Text size="sm" c="red" role="alert">
              {t('routes.fixErrors')}
            </Text>
          )}
          <RouteEditor routes={routes} onChange={change} pipelines={pipelines} events={events} errors={errors} matched={matched} disabled={!manage} />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <DryRun botUuid={bot.uuid} routes={() => routes.map(toInput)} pipelines={pipelines} onResult={setMatched} />
      </Grid.Col>
    </Grid>
  );
}
