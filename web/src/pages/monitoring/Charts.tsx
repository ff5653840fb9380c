// The traffic and token time series (recharts through @mantine/charts), its own chunk.
import '@mantine/charts/styles.css';

import { AreaChart, BarChart } from '@mantine/charts';
import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

import type { TokenStatistics, Traffic } from '../../api/types';

function label(ts: string, language: string, day: boolean): string {
  const d = new Date(ts.includes('T') || ts.endsWith('Z') ? ts : `${ts.replace(' ', 'T')}${ts.length <= 10 ? 'T00:00' : ''}:00Z`);
  if (Number.isNaN(d.getTime())) return ts;
  return new Intl.DateTimeFormat(language.replace('_', '-'), day ? { month: 'short', day: 'numeric' } : { hour: '2-digit', minute: '2-digit' }).format(d);
}

export default function Charts({ traffic, tokens }: { traffic: Traffic | undefined; tokens: TokenStatistics | undefined }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'zh_Hans' ? 'zh-CN' : 'en-US';
  const trafficData = (traffic?.points ?? []).map((p) => ({ at: label(p.timestamp, lang, traffic?.bucket === 'day'), [t('monitoring.messages')]: p.messages, [t('monitoring.llmCalls')]: p.llm_calls }));
  const tokenData = (tokens?.timeseries ?? []).map((p) => ({ at: label(p.bucket, lang, tokens?.bucket === 'day'), [t('monitoring.inputTokens')]: p.input_tokens, [t('monitoring.outputTokens')]: p.output_tokens }));
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Card withBorder padding="md" component="section" aria-label={t('monitoring.traffic')}>
        <Title order={2} size="h5" mb="sm">
          {t('monitoring.traffic')}
        </Title>
        {trafficData.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('monitoring.noData')}
          </Text>
        ) : (
          <AreaChart h={220} data={trafficData} dataKey="at" curveType="monotone" withLegend series={[{ name: t('monitoring.messages'), color: 'blue.6' }, { name: t('monitoring.llmCalls'), color: 'teal.6' }]} />
        )}
      </Card>
      <Card withBorder padding="md" component="section" aria-label={t('monitoring.tokenSeries')}>
        <Title order={2} size="h5" mb="sm">
          {t('monitoring.tokenSeries')}
        </Title>
        {tokenData.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('monitoring.noData')}
          </Text>
        ) : (
          <BarChart h={220} data={tokenData} dataKey="at" type="stacked" withLegend series={[{ name: t('monitoring.inputTokens'), color: 'violet.6' }, { name: t('monitoring.outputTokens'), color: 'orange.6' }]} />
        )}
      </Card>
    </SimpleGrid>
  );
}
