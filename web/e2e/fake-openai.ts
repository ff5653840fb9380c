// A fake OpenAI-compatible upstream on loopback for the browser tests: chat completions
// (JSON and SSE streaming), embeddings, rerank, and an error mode — the key `sk-bad` answers
// 401 like OpenAI does, a model named `error-*` answers 500.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAi {
  baseUrl: string;
  requests: { path: string; model: string | undefined }[];
  close: () => Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const model = typeof body.model === 'string' ? body.model : undefined;
      const path = (req.url ?? '').replace(/\?.*$/, '');
      requests.push({ path, model });
      if (req.headers.authorization === 'Bearer sk-bad') {
        json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
        return;
      }
      if (model?.startsWith('error-')) {
        json(res, 500, { error: { message: 'The server had an error', type: 'server_error', code: null } });
        return;
      }
      if (path.endsWith('/chat/completions')) {
        if (body.stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (delta: object, finish: string | null, extra: object = {}) =>
            `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
          res.write(chunk({ role: 'assistant' }, null));
          res.write(chunk({ content: 'Hello from ' }, null));
          res.write(chunk({ content: 'the fake.' }, null));
          res.write(chunk({}, 'stop', { usage }));
          res.end('data: [DONE]\n\n');
          return;
        }
        json(res, 200, {
          id: 'c1',
          object: 'chat.completion',
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the fake.' }, finish_reason: 'stop' }],
          usage,
        });
        return;
      }
      if (path.endsWith('/embeddings')) {
        const input = Array.isArray(body.input) ? body.input : [body.input];
        json(res, 200, { object: 'list', model, data: input.map((_, i) => ({ object: 'embedding', index: i, embedding: [0.1 * (i + 1), 0.2, 0.3] })), usage });
        return;
      }
      if (path.endsWith('/rerank')) {
        const documents = Array.isArray(body.documents) ? body.documents : [];
        json(res, 200, { model, results: documents.map((_, i) => ({ index: i, relevance_score: 1 / (i + 1) })) });
        return;
      }
      if (path.endsWith('/models')) {
        json(res, 200, { object: 'list', data: [{ id: 'fake-gpt', object: 'model' }] });
        return;
      }
      json(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
