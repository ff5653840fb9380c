// Debug chat with the pipeline over its WebSocket: the reply streams in as it comes, then the
// model that answered (primary or a fallback, from the execution's LLM calls) and a link to
// the execution in monitoring. Reset starts a new conversation (a new connection is a new
// session on the server).
import { Alert, Anchor, Badge, Button, Card, Group, Loader, Paper, ScrollArea, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { RotateCcw, Send } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { session } from '../../api/session';
import type { LlmCallRow, Pipeline } from '../../api/types';
import { agentOf } from './agent';
import { authFrame, messageFrame, parseFrame, socketUrl } from './chatSocket';

interface Turn {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  done: boolean;
  executionId?: string;
}

type State = 'connecting' | 'ready' | 'closed';

export function DebugChat({ pipeline }: { pipeline: Pipeline }) {
  const { t } = useTranslation();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [state, setState] = useState<State>('connecting');
  const [problem, setProblem] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [generation, setGeneration] = useState(0);
  const socket = useRef<WebSocket | null>(null);
  const nextId = useRef(1);

  useEffect(() => {
    const ws = new WebSocket(socketUrl(globalThis.location.origin, pipeline.uuid));
    socket.current = ws;
    ws.onopen = () => ws.send(authFrame(session.token() ?? '', session.workspace() ?? ''));
    ws.onmessage = (event) => {
      const frame = parseFrame(event.data);
      if (!frame) return;
      switch (frame.type) {
        case 'connected':
          setState('ready');
          setProblem(null);
          break;
        case 'chunk':
          setTurns((all) => {
            const last = all[all.length - 1];
            if (last?.role === 'assistant' && !last.done) return [...all.slice(0, -1), { ...last, text: last.text + frame.content }];
            return [...all, { id: nextId.current++, role: 'assistant', text: frame.content, done: false }];
          });
          break;
        case 'response':
          setTurns((all) => {
            const last = all[all.length - 1];
            const finished = { text: frame.data.content, done: frame.data.is_final, ...(frame.data.execution_id ? { executionId: frame.data.execution_id } : {}) };
            if (last?.role === 'assistant' && !last.done) return [...all.slice(0, -1), { ...last, ...finished, text: finished.text || last.text }];
            return [...all, { id: nextId.current++, role: 'assistant', ...finished }];
          });
          break;
        case 'error':
          setProblem(frame.message);
          setTurns((all) => all.map((x) => (x.done ? x : { ...x, done: true })));
          break;
        default:
          break;
      }
    };
    ws.onclose = () => {
      if (socket.current === ws) setState('closed');
    };
    return () => {
      socket.current = null;
      ws.onclose = null;
      ws.onmessage = null;
      // Closing a socket still connecting makes the browser log an error: close it once open.
      if (ws.readyState === WebSocket.CONNECTING) ws.onopen = () => ws.close();
      else {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'disconnect' }));
        ws.close();
      }
    };
  }, [pipeline.uuid, generation]);

  const busy = turns.some((x) => x.role === 'assistant' && !x.done) || turns[turns.length - 1]?.role === 'user';
  const send = useCallback(() => {
    const text = draft.trim();
    if (!text || !socket.current || state !== 'ready') return;
    socket.current.send(messageFrame(text));
    setTurns((all) => [...all, { id: nextId.current++, role: 'user', text, done: true }]);
    setDraft('');
  }, [draft, state]);

  const reset = () => {
    setTurns([]);
    setProblem(null);
    setState('connecting');
    setGeneration((g) => g + 1);
  };

  return (
    <Card withBorder padding="md" component="section" aria-labelledby="debug-chat-title">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={2} size="h4" id="debug-chat-title">
              {t('chat.title')}
            </Title>
            <Badge variant="light" color={state === 'ready' ? 'teal' : state === 'connecting' ? 'blue' : 'gray'} data-testid="chat-state">
              {t(`chat.state.${state}`)}
            </Badge>
          </Group>
          <Button variant="default" size="xs" leftSection={<RotateCcw size={14} />} onClick={reset} data-testid="chat-reset">
            {state === 'closed' ? t('chat.reconnect') : t('chat.reset')}
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          {t('chat.hint')}
        </Text>
        {problem && (
          <Alert color="red" role="alert">
            {problem}
          </Alert>
        )}
        <ScrollArea.Autosize mah={420}>
          <Stack gap="xs" data-testid="chat-log" aria-live="polite">
            {turns.length === 0 && (
              <Text size="sm" c="dimmed">
                {t('chat.empty')}
              </Text>
            )}
            {turns.map((turn) => (
              <Paper key={turn.id} p="xs" radius="md" withBorder bg={turn.role === 'user' ? 'var(--mantine-color-default-hover)' : undefined} data-testid={`chat-${turn.role}`}>
                <Text size="xs" c="dimmed" mb={2}>
                  {turn.role === 'user' ? t('chat.you') : t('chat.bot')}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {turn.text}
                  {!turn.done && <Loader size={10} ml={6} type="dots" aria-label={t('chat.streaming')} />}
                </Text>
                {turn.done && turn.executionId && <AnsweredBy executionId={turn.executionId} pipeline={pipeline} />}
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
        <Group align="flex-end" wrap="nowrap">
          <Textarea
            aria-label={t('chat.message')}
            placeholder={t('chat.placeholder')}
            value={draft}
            onChange={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                send();
              }
            }}
            autosize
            minRows={1}
            maxRows={5}
            style={{ flex: 1 }}
            data-testid="chat-input"
          />
          <Button leftSection={<Send size={16} />} onClick={send} disabled={state !== 'ready' || busy || !draft.trim()} data-testid="chat-send">
            {t('chat.send')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function AnsweredBy({ executionId, pipeline }: { executionId: string; pipeline: Pipeline }) {
  const { t } = useTranslation();
  const calls = useQuery({
    queryKey: ['execution-llm', executionId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/monitoring/executions/{source}/{execution_id}', { params: { path: { source: 'auto', execution_id: executionId }, query: { section: 'llm_calls', limit: 20 } } })),
  });
  const items = (calls.data?.pages.llm_calls?.items ?? []) as unknown as LlmCallRow[];
  const answered = [...items].reverse().find((c) => c.status === 'success') ?? items[items.length - 1];
  const primary = agentOf(pipeline.config)?.model.primary ?? '';
  return (
    <Group gap="xs" mt={4} data-testid="chat-meta">
      {answered && (
        <Badge size="sm" variant="light" color={answered.model_uuid === primary ? 'blue' : 'orange'} data-testid="chat-model">
          {answered.model_uuid === primary ? t('chat.primary', { model: answered.model_name }) : t('chat.fallback', { model: answered.model_name })}
        </Badge>
      )}
      <Anchor component={Link} to={`/monitoring/executions/auto/${encodeURIComponent(executionId)}`} size="xs" data-testid="chat-execution-link">
        {t('chat.openExecution')}
      </Anchor>
    </Group>
  );
}
